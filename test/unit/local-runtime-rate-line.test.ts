/**
 * Under `npm start` the API and the reconciler read the same shared rate budget the local executors
 * book EC2's tokens from, with the account's budgets (EC2's CreateVolume bucket less its reserve: 95
 * tokens, 5 a second): a volume whose CreateVolume waits in line shows `rateWait` with about how long
 * the line is, in whole seconds (docs/api.md, "Waiting in line"), and the reconciler leaves such a
 * pending call waiting in the line, not re-enqueued behind it (a message that holds its place is not
 * lost).
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

describe("the local runtime's API", () => {
  it("shows a pending volume's CreateVolume waiting in the line its executors booked", async () => {
    runtime = await startLocalRuntime({ backend: 'memory', port: 0, demoInstances: 0, log: new RecordingLog(), pollIdleMs: 5 });
    // No executor takes the volume up: its CreateVolume is the next call, not yet started.
    await runtime.queuePoller.stop();
    // The whole bucket (95) and 50 tokens more booked ahead: a line of 50 tokens at 5 a second.
    const now = Date.now();
    await backend.rateBudget!.take('CreateVolume', 145, { burst: 95, ratePerSecond: 5 }, now, 3_600_000);
    await runtime.store.create(newVolume('data-1', {}, { availabilityZone: 'us-east-1a' }));

    const answer = await fetch(`${runtime.apiUrl}/volumes/data-1`);

    expect(answer.status).toBe(200);
    const view = (await answer.json()) as { status: { state: string }; rateWait?: { action: string; seconds: number } };
    expect(view.status.state).toBe('pending');
    expect(view.rateWait?.action).toBe('CreateVolume');
    // A token taken now is usable after the 50 booked ahead of it, at 10.2 s: about 11 s, less the time since the booking.
    expect(view.rateWait?.seconds).toBeGreaterThanOrEqual(8);
    expect(view.rateWait?.seconds).toBeLessThanOrEqual(11);
  });
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
