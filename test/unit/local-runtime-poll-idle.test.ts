/** The local runtime's pollers wait `pollIdleMs` between empty reads (tests shorten the wait with it). */
import { describe, expect, it, vi } from 'vitest';
import { startLocalRuntime } from '../../lib/local/runtime.js';
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
  it('read an empty source again after the idle wait given, not the default 200 ms', async () => {
    const runtime = await startLocalRuntime({ backend: 'moto', endpoint: 'http://127.0.0.1:1', port: 0, demoInstances: 0, log: new RecordingLog(), pollIdleMs: 5 });
    try {
      // Ten reads each: 50 ms of idle waits at 5 ms, 1.8 s at 200 ms.
      await vi.waitFor(() => expect(Math.min(reads.stream, reads.queue)).toBeGreaterThanOrEqual(10), { timeout: 1_000, interval: 10 });
    } finally {
      await runtime.stop();
    }
  });
});
