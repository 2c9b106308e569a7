/**
 * The local runtime's reconciler timer and its stop: the default period, one pass at a time (a tick
 * while a pass is under way starts none, as the deployed function's concurrency of one has it), a
 * pass under way at the stop, an API that fails to close.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startLocalRuntime } from '../../lib/local/runtime.js';
import { RecordingLog } from '../../lib/memory/index.js';
import { RECONCILER } from '../../lib/settings.js';

/** The moto backend, started with an endpoint, whose table reads wait for `release` and then fail; and an API whose close may fail. */
const state = vi.hoisted(() => ({
  stopped: 0,
  reads: 0,
  gate: Promise.resolve(),
  closeError: undefined as Error | undefined,
}));
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
      stop: async () => void state.stopped++,
    }),
  };
});
vi.mock('../../lib/api/node-server.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../lib/api/node-server.js')>();
  return {
    ...actual,
    startApiServer: async (...args: Parameters<typeof actual.startApiServer>) => {
      const server = await actual.startApiServer(...args);
      return {
        ...server,
        close: async () => {
          await server.close();
          if (state.closeError) throw state.closeError;
        },
      };
    },
  };
});

const start = (log = new RecordingLog(), reconcileEveryMs?: number) =>
  startLocalRuntime({ backend: 'moto', endpoint: 'http://127.0.0.1:1', port: 0, demoInstances: 0, log, pollIdleMs: 5, ...(reconcileEveryMs ? { reconcileEveryMs } : {}) });

describe('the local runtime reconciler timer and stop', () => {
  beforeEach(() => {
    state.stopped = 0;
    state.reads = 0;
    state.gate = Promise.resolve();
    state.closeError = undefined;
  });
  afterEach(() => vi.useRealTimers());

  it('runs a reconciler pass every RECONCILER.intervalMinutes when no period is given', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const log = new RecordingLog();
    const runtime = await start(log);
    const failures = () => log.entries.filter((entry) => entry.message === 'reconciler failed').length;
    try {
      vi.advanceTimersByTime(RECONCILER.intervalMinutes * 60_000 - 1);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(failures()).toBe(0);
      vi.advanceTimersByTime(1);
      await vi.waitFor(() => expect(failures()).toBe(1));
    } finally {
      await runtime.stop();
    }
  });

  it('starts no pass on a tick while the previous pass is under way, and starts one on the tick after it ends', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    let release!: () => void;
    state.gate = new Promise<void>((resolve) => (release = resolve));
    const log = new RecordingLog();
    const runtime = await start(log, 60_000);
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

  it('stops the backend only once the reconciler pass under way has ended', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    let release!: () => void;
    state.gate = new Promise<void>((resolve) => (release = resolve));
    const runtime = await start(new RecordingLog(), 60_000);
    vi.advanceTimersByTime(60_000);
    await vi.waitFor(() => expect(state.reads).toBeGreaterThan(0));
    let stopped = false;
    const stopping = runtime.stop().then(() => (stopped = true));
    // Long past the API's close and the pollers' idle waits.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(stopped).toBe(false);
    expect(state.stopped).toBe(0);
    release();
    await stopping;
    expect(state.stopped).toBe(1);
  });

  it('still stops the pollers and the backend when the API fails to close, then fails with that error', async () => {
    state.closeError = new Error('close failed');
    const runtime = await start();
    await expect(runtime.stop()).rejects.toBe(state.closeError);
    expect(state.stopped).toBe(1);
  });
});
