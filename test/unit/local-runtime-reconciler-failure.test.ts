import { afterEach, describe, expect, it, vi } from 'vitest';
import { RecordingLog } from '../../lib/memory/index.js';
import { startLocalRuntime } from '../../lib/local/runtime.js';

/** The moto backend, started with an endpoint, whose record table cannot be read: every reconciler pass fails. */
const calls = vi.hoisted(() => ({ streamReads: 0, queueReads: 0, stopped: 0 }));
vi.mock('../../lib/local/moto-backend.js', async (importOriginal) => {
  const { idleMotoBackend, storeReadingWith } = await import('./local-runtime-fixtures.js');
  const store = storeReadingWith(() => Promise.reject(new Error('table unreachable')));
  return { ...(await importOriginal<typeof import('../../lib/local/moto-backend.js')>()), createMotoBackend: async () => idleMotoBackend(calls, { store }) };
});

describe('the local runtime when a reconciler pass fails', () => {
  afterEach(() => vi.useRealTimers());

  it('logs the failure and runs the next pass at the next tick, the runtime going on', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const log = new RecordingLog();
    const runtime = await startLocalRuntime({ backend: 'moto', endpoint: 'http://127.0.0.1:1', port: 0, demoInstances: 0, reconcileEveryMs: 60_000, log });
    try {
      const failures = () => log.entries.filter((entry) => entry.level === 'error' && entry.message === 'reconciler failed');
      vi.advanceTimersByTime(60_000);
      await vi.waitFor(() => expect(failures()).toHaveLength(1));
      expect(failures()[0]!.attributes).toEqual({ error: 'Error: table unreachable' });
      vi.advanceTimersByTime(60_000);
      await vi.waitFor(() => expect(failures()).toHaveLength(2));
    } finally {
      await runtime.stop();
    }
    expect(calls.stopped).toBe(1);
  });
});
