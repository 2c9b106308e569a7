/** Once the local runtime's stop has resolved, its pollers read neither the stream nor the queue again. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startLocalRuntime } from '../../lib/local/runtime.js';
import { RecordingLog } from '../../lib/memory/index.js';

const calls = vi.hoisted(() => ({ streamReads: 0, queueReads: 0, stopped: 0 }));
vi.mock('../../lib/local/moto-backend.js', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../lib/local/moto-backend.js')>()),
  createMotoBackend: async () => (await import('./local-runtime-fixtures.js')).idleMotoBackend(calls),
}));

describe('the local runtime stopped', () => {
  afterEach(() => vi.useRealTimers());

  it('reads the stream and the queue no more', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const runtime = await startLocalRuntime({ backend: 'moto', endpoint: 'http://127.0.0.1:1', port: 0, demoInstances: 0, log: new RecordingLog(), pollIdleMs: 5 });
    await vi.advanceTimersByTimeAsync(20);
    expect(calls.streamReads > 0 && calls.queueReads > 0).toBe(true);
    const stopped = runtime.stop();
    // The pollers' idle waits under way end; then nothing is read again.
    await vi.advanceTimersByTimeAsync(5);
    await stopped;
    const after = { streamReads: calls.streamReads, queueReads: calls.queueReads };
    await vi.advanceTimersByTimeAsync(1_000);
    expect(calls).toMatchObject(after);
  });
});
