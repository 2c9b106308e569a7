/** The local runtime's pollers wait `pollIdleMs` between empty reads (tests shorten the wait with it). */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startLocalRuntime } from '../../lib/local/runtime.js';
import { EXECUTOR } from '../../lib/settings.js';
import { RecordingLog } from '../../lib/memory/index.js';

const calls = vi.hoisted(() => ({ streamReads: 0, queueReads: 0, stopped: 0 }));
vi.mock('../../lib/local/moto-backend.js', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../lib/local/moto-backend.js')>()),
  createMotoBackend: async () => (await import('./local-runtime-fixtures.js')).idleMotoBackend(calls),
}));

describe("the local runtime's pollers", () => {
  afterEach(() => vi.useRealTimers());

  it('read an empty source again after the idle wait given, not the default 200 ms', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const runtime = await startLocalRuntime({ backend: 'moto', endpoint: 'http://127.0.0.1:1', port: 0, demoInstances: 0, log: new RecordingLog(), pollIdleMs: 5 });
    try {
      await vi.advanceTimersByTimeAsync(0);
      const before = { ...calls };
      // 50 ms of idle waits: ten more reads by each poller at 5 ms (the stream's one, the queue's
      // one per executor concurrency), none at 200 ms.
      await vi.advanceTimersByTimeAsync(50);
      expect(calls.streamReads - before.streamReads).toBe(10);
      expect(calls.queueReads - before.queueReads).toBe(10 * EXECUTOR.maxConcurrency);
    } finally {
      const stopped = runtime.stop();
      await vi.advanceTimersByTimeAsync(5);
      await stopped;
    }
  });
});
