import { describe, expect, it, vi } from 'vitest';
import { RecordingLog } from '../../lib/memory/index.js';
import { startLocalRuntime } from '../../lib/local/runtime.js';

/** The moto backend, started (as if with its own moto_server), its demo instances launched. */
const backend = vi.hoisted(() => ({ stopped: 0 }));
vi.mock('../../lib/local/moto-backend.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../lib/local/moto-backend.js')>();
  return {
    ...actual,
    createMotoBackend: async () => ({
      endpoint: 'http://127.0.0.1:1',
      adapters: {},
      stream: { read: async () => [] },
      messages: { receive: async () => [], delete: async () => {} },
      launchInstances: async () => ['i-1'],
      stop: async () => void backend.stopped++,
    }),
  };
});

describe('LocalRuntime.stop called more than once', () => {
  it('stops the API, the pollers and the backend once, and every call resolves when that stop is done', async () => {
    const runtime = await startLocalRuntime({ backend: 'moto', port: 0, demoInstances: 1, log: new RecordingLog(), pollIdleMs: 5 });
    // Two at once (a signal handler and a test's clean-up, say), then one more after.
    const results = await Promise.allSettled([runtime.stop(), runtime.stop()]);
    expect(results).toEqual([
      { status: 'fulfilled', value: undefined },
      { status: 'fulfilled', value: undefined },
    ]);
    await expect(runtime.stop()).resolves.toBeUndefined();
    expect(backend.stopped).toBe(1);
    await expect(fetch(`${runtime.apiUrl}/openapi.json`)).rejects.toThrow();
  });
});
