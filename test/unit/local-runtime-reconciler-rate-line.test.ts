/**
 * Under `npm start` the reconciler reads the shared rate budget the local executors book EC2's
 * tokens from: a pending call whose bucket has a line waits in it, not re-enqueued behind it
 * (a message that holds its place is not lost).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { LocalRuntime } from '../../lib/local/runtime.js';
import { startLocalRuntime } from '../../lib/local/runtime.js';
import type { MemoryRateBudget } from '../../lib/memory/rate-budget.js';
import { RecordingLog } from '../../lib/memory/index.js';
import { newVolume } from './engine-fixtures.js';

/** The memory backend as the runtime makes it, its shared rate budget kept for the test to book tokens from. */
const backend = vi.hoisted(() => ({ rateBudget: undefined as MemoryRateBudget | undefined }));
vi.mock('../../lib/local/memory-backend.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../lib/local/memory-backend.js')>();
  const { memoryBackendSeen } = await import('./local-runtime-fixtures.js');
  return { ...actual, createMemoryBackend: memoryBackendSeen(actual.createMemoryBackend, (made) => {
    backend.rateBudget = made.rateBudget;
  }) };
});

let runtime: LocalRuntime | undefined;
afterEach(async () => {
  await runtime?.stop();
  runtime = undefined;
});

describe("the local runtime's reconciler", () => {
  it('leaves an overdue pending volume whose CreateVolume has a line of tokens booked ahead to wait in it', async () => {
    runtime = await startLocalRuntime({ backend: 'memory', port: 0, demoInstances: 0, log: new RecordingLog(), pollIdleMs: 5, reconcilerOverdueAfterMs: 0 });
    await Promise.all([runtime.streamPoller.stop(), runtime.queuePoller.stop()]);
    // The whole bucket (95) and 50 tokens more booked ahead: a line of about 10 s.
    await backend.rateBudget!.take('CreateVolume', 145, { burst: 95, ratePerSecond: 5 }, Date.now(), 3_600_000);
    await runtime.store.create(newVolume('data-1', {}, { availabilityZone: 'us-east-1a' }));

    const report = await runtime.reconcileNow();

    expect(report.scanned).toBe(1);
    expect(report.requeued).toEqual([]);
  });
});
