/**
 * `npm run bench:cpu` deletes the tables, queues and instances its run made in the emulator when
 * the run ends: when it gives up on its lifecycles, when it fails, when it is stopped, and when it ends well; and leaves
 * them when asked to keep them. A run's own error is the one thrown, not a failure to delete.
 * The backend here is a stand-in whose calls are recorded (test/integration/bench-cpu-cleanup.test.ts
 * runs against moto).
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { measureFunctionCpu } from '../../bench/cpu.js';

const state = vi.hoisted(() => ({
  calls: [] as string[],
  probes: 0,
  createError: undefined as Error | undefined,
  deleteError: undefined as Error | undefined,
}));
vi.mock('../../lib/local/moto-backend.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../lib/local/moto-backend.js')>();
  const done = async () => undefined;
  return {
    ...actual,
    createMotoBackend: async () => ({
      endpoint: 'http://127.0.0.1:1',
      adapters: {
        store: {
          create: async () => {
            if (state.createError) throw state.createError;
          },
          get: done,
        },
        provider: {
          createVolume: async () => {
            state.probes++;
            return { ebsVolumeId: 'vol-probe' };
          },
          describeVolumes: async () => [],
          deleteVolume: done,
        },
        queue: { send: done },
      },
      stream: { read: async () => [] },
      messages: { receive: async () => [], delete: done },
      launchInstances: async () => ['i-1'],
      deleteCreated: async () => {
        state.calls.push('deleteCreated');
        if (state.deleteError) throw state.deleteError;
      },
      stop: async () => void state.calls.push('stop'),
    }),
  };
});

/** One lifecycle, given up on at once: no stream or queue is read. */
const run = (keep?: boolean) => measureFunctionCpu({ lifecycles: 1, endpoint: 'http://127.0.0.1:1', requestsPerClient: 1, timeoutMs: 0, ...(keep ? { keep } : {}) });

describe('the function CPU benchmark leaves nothing of its run in the emulator', () => {
  beforeEach(() => {
    state.calls = [];
    state.probes = 0;
    state.createError = undefined;
    state.deleteError = undefined;
  });

  it('deletes what its run made, then stops, when it gave up on its lifecycles', async () => {
    await expect(run()).resolves.toMatchObject({ lifecycles: 1, converged: 0 });
    expect(state.calls).toEqual(['deleteCreated', 'stop']);
  });

  it('deletes what its run made when the run fails, and throws the run’s error', async () => {
    state.createError = new Error('table unreachable');
    await expect(run()).rejects.toBe(state.createError);
    expect(state.calls).toEqual(['deleteCreated', 'stop']);
  });

  it('throws the run’s error, not the failure to delete, when both fail', async () => {
    state.createError = new Error('table unreachable');
    state.deleteError = new Error('could not delete table x');
    await expect(run()).rejects.toBe(state.createError);
    expect(state.calls).toEqual(['deleteCreated', 'stop']);
  });

  it('throws a failure to delete after a run that did not fail, and still stops', async () => {
    state.deleteError = new Error('could not delete table x');
    await expect(run()).rejects.toBe(state.deleteError);
    expect(state.calls).toEqual(['deleteCreated', 'stop']);
  });

  it('stopped by its signal, measures nothing more, deletes what its run made and rejects with the signal’s reason', async () => {
    const stop = new AbortController();
    stop.abort('SIGINT');
    const stopped = measureFunctionCpu({ lifecycles: 1, endpoint: 'http://127.0.0.1:1', requestsPerClient: 1, timeoutMs: 60_000, signal: stop.signal });
    await expect(stopped).rejects.toBe('SIGINT');
    expect(state.probes).toBe(0);
    expect(state.calls).toEqual(['deleteCreated', 'stop']);
  });

  it('keeps what its run made when asked to', async () => {
    await expect(run(true)).resolves.toMatchObject({ lifecycles: 1, converged: 0 });
    expect(state.calls).toEqual(['stop']);
  });
});
