/** Once the local runtime has stopped, its reconciler timer starts no further pass. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startLocalRuntime } from '../../lib/local/runtime.js';
import { RecordingLog } from '../../lib/memory/index.js';

/** The moto backend, started with an endpoint, whose table reads fail: each pass logs `reconciler failed`. */
const calls = vi.hoisted(() => ({ streamReads: 0, queueReads: 0, stopped: 0 }));
vi.mock('../../lib/local/moto-backend.js', async (importOriginal) => {
  const { idleMotoBackend, storeReadingWith } = await import('./local-runtime-fixtures.js');
  const store = storeReadingWith(() => Promise.reject(new Error('table unreachable')));
  return { ...(await importOriginal<typeof import('../../lib/local/moto-backend.js')>()), createMotoBackend: async () => idleMotoBackend(calls, { store }) };
});

afterEach(() => vi.useRealTimers());

describe('the local runtime stopped', () => {
  it('runs no reconciler pass at the periods after its stop', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'setTimeout', 'clearTimeout', 'Date'] });
    const log = new RecordingLog();
    const runtime = await startLocalRuntime({ backend: 'moto', endpoint: 'http://127.0.0.1:1', port: 0, demoInstances: 0, log, pollIdleMs: 5, reconcileEveryMs: 60_000 });
    const passes = () => log.entries.filter((entry) => entry.message === 'reconciler failed').length;
    await vi.advanceTimersByTimeAsync(60_000);
    expect(passes()).toBe(1);
    const stopped = runtime.stop();
    await vi.advanceTimersByTimeAsync(5);
    await stopped;
    await vi.advanceTimersByTimeAsync(5 * 60_000);
    expect(passes()).toBe(1);
  });
});
