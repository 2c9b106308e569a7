import { describe, expect, it, vi } from 'vitest';
import { RecordingLog } from '../../lib/memory/index.js';
import { startLocalRuntime } from '../../lib/local/runtime.js';

/** The moto backend, started (as if with its own moto_server), its demo instances launched. */
const calls = vi.hoisted(() => ({ streamReads: 0, queueReads: 0, stopped: 0 }));
vi.mock('../../lib/local/moto-backend.js', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../lib/local/moto-backend.js')>()),
  createMotoBackend: async () => (await import('./local-runtime-fixtures.js')).idleMotoBackend(calls, { instanceIds: ['i-1'] }),
}));

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
    expect(calls.stopped).toBe(1);
    await expect(fetch(`${runtime.apiUrl}/openapi.json`)).rejects.toThrow();
  });
});
