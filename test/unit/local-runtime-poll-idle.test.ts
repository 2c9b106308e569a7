/** The local runtime's pollers wait `pollIdleMs` between empty reads (tests shorten the wait with it). */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startLocalRuntime } from '../../lib/local/runtime.js';
import { EXECUTOR } from '../../lib/settings.js';
import { RecordingLog } from '../../lib/memory/index.js';

const reads = vi.hoisted(() => ({ stream: 0, queue: 0 }));
vi.mock('../../lib/local/moto-backend.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../lib/local/moto-backend.js')>();
  return {
    ...actual,
    createMotoBackend: async () => ({
      endpoint: 'http://127.0.0.1:1',
      adapters: { store: {} },
      stream: {
        read: async () => {
          reads.stream++;
          return [];
        },
      },
      messages: {
        receive: async () => {
          reads.queue++;
          return [];
        },
        delete: async () => {},
      },
      launchInstances: async () => [],
      stop: async () => {},
    }),
  };
});

describe("the local runtime's pollers", () => {
  afterEach(() => vi.useRealTimers());

  it('read an empty source again after the idle wait given, not the default 200 ms', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const runtime = await startLocalRuntime({ backend: 'moto', endpoint: 'http://127.0.0.1:1', port: 0, demoInstances: 0, log: new RecordingLog(), pollIdleMs: 5 });
    try {
      await vi.advanceTimersByTimeAsync(0);
      const before = { ...reads };
      // 50 ms of idle waits: ten more reads by each poller at 5 ms (the stream's one, the queue's
      // one per executor concurrency), none at 200 ms.
      await vi.advanceTimersByTimeAsync(50);
      expect(reads.stream - before.stream).toBe(10);
      expect(reads.queue - before.queue).toBe(10 * EXECUTOR.maxConcurrency);
    } finally {
      const stopped = runtime.stop();
      await vi.advanceTimersByTimeAsync(5);
      await stopped;
    }
  });
});
