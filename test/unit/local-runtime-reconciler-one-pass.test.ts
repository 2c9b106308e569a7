/** The local runtime runs one reconciler pass at a time, as the deployed function does: a tick while a pass is under way starts none. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startLocalRuntime } from '../../lib/local/runtime.js';
import { RecordingLog } from '../../lib/memory/index.js';

/** The moto backend, started with an endpoint, whose table reads wait for `gate` and then fail. */
const state = vi.hoisted(() => ({ reads: 0, gate: Promise.resolve() }));
vi.mock('../../lib/local/moto-backend.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../lib/local/moto-backend.js')>();
  const held = async () => {
    state.reads++;
    await state.gate;
    throw new Error('table unreachable');
  };
  return {
    ...actual,
    createMotoBackend: async () => ({
      endpoint: 'http://127.0.0.1:1',
      adapters: { store: { list: held, get: held, getMany: held, attachmentsOfVolume: held, attachmentsOfInstance: held } },
      stream: { read: async () => [] },
      messages: { receive: async () => [], delete: async () => {} },
      launchInstances: async () => [],
      stop: async () => {},
    }),
  };
});

describe('the local runtime reconciler timer', () => {
  afterEach(() => vi.useRealTimers());

  it('starts no pass on a tick while the previous pass is under way, and starts one on the tick after it ends', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    let release!: () => void;
    state.gate = new Promise<void>((resolve) => (release = resolve));
    const log = new RecordingLog();
    const runtime = await startLocalRuntime({ backend: 'moto', endpoint: 'http://127.0.0.1:1', port: 0, demoInstances: 0, log, pollIdleMs: 5, reconcileEveryMs: 60_000 });
    try {
      vi.advanceTimersByTime(60_000);
      await vi.waitFor(() => expect(state.reads).toBeGreaterThan(0));
      const readsOfFirstPass = state.reads;
      vi.advanceTimersByTime(60_000);
      vi.advanceTimersByTime(60_000);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(state.reads).toBe(readsOfFirstPass);
      release();
      await vi.waitFor(() => expect(log.entries.filter((entry) => entry.message === 'reconciler failed')).toHaveLength(1));
      vi.advanceTimersByTime(60_000);
      await vi.waitFor(() => expect(state.reads).toBeGreaterThan(readsOfFirstPass));
    } finally {
      await runtime.stop();
    }
  });
});
