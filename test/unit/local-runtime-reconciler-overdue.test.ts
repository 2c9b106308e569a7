/**
 * The local runtime's reconciler judges a record overdue after `reconcilerOverdueAfterMs` when it is
 * given (tests shorten the wait with it), and after the deployed 5 minutes otherwise.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startLocalRuntime, type LocalRuntime } from '../../lib/local/runtime.js';
import { RecordingLog } from '../../lib/memory/index.js';
import { newVolume } from './engine-fixtures.js';

let runtime: LocalRuntime | undefined;
afterEach(async () => {
  await runtime?.stop();
  runtime = undefined;
});

/** A runtime whose pollers are stopped, holding one pending volume written just now that no executor has taken up; then one reconciler pass. */
async function passOverAPendingVolume(reconcilerOverdueAfterMs?: number) {
  runtime = await startLocalRuntime({
    backend: 'memory',
    port: 0,
    demoInstances: 0,
    log: new RecordingLog(),
    pollIdleMs: 5,
    ...(reconcilerOverdueAfterMs !== undefined ? { reconcilerOverdueAfterMs } : {}),
  });
  await Promise.all([runtime.streamPoller.stop(), runtime.queuePoller.stop()]);
  const now = new Date().toISOString();
  await runtime.store.create(newVolume('data-1', { status: { state: 'pending', attempts: 0, updatedAt: now }, createdAt: now }, { availabilityZone: 'us-east-1a' }));
  return runtime.reconcileNow();
}

describe("the local runtime's reconciler", () => {
  it('re-enqueues a record quiet for longer than the overdue time given', async () => {
    const report = await passOverAPendingVolume(0);
    expect(report.requeued.map((r) => r.key)).toEqual(['volume/data-1']);
  });

  it('leaves a record written just now alone when no overdue time is given', async () => {
    const report = await passOverAPendingVolume();
    expect(report.scanned).toBe(1);
    expect(report.requeued).toEqual([]);
  });
});
