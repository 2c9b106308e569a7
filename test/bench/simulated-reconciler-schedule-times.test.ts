/**
 * The simulated reconciler schedule fires as the deployed EventBridge rule does (BENCHMARKS.md,
 * "The reconciler"): one pass every `RECONCILER.intervalMinutes` of virtual time from the start,
 * on the interval exactly, however long each pass took.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Reconciler, type ReconcileReport } from '../../lib/engine/reconciler.js';
import { RECONCILER } from '../../lib/settings.js';
import { simulatedProvisioner } from './simulated-provisioner.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe("the simulated provisioner's reconciler schedule", () => {
  it('starts a pass at exactly each multiple of the interval from the start', async () => {
    const { loop, design } = simulatedProvisioner();
    const start = loop.now();
    const interval = RECONCILER.intervalMinutes * 60_000;
    const startedAt: number[] = [];
    vi.spyOn(Reconciler.prototype, 'run').mockImplementation(async () => {
      startedAt.push(loop.now() - start);
      // A pass that takes a while: the next one is still due on the interval.
      await loop.clock.sleep(70_000);
      const report: ReconcileReport = { scanned: 0, invalid: 0, requeued: [], leaked: [], segments: { done: 1, total: 1 }, leakCheckComplete: true };
      return report;
    });
    let stopped = false;
    design.startSchedules(() => stopped);
    await loop.run({ untilMs: start + 4 * interval });
    stopped = true;
    expect(startedAt).toEqual([interval, 2 * interval, 3 * interval, 4 * interval]);
  });
});
