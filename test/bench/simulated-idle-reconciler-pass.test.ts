/**
 * The pass that prices the reconciler at rest (bench/provisioner.ts `idleReconcilerPass`,
 * BENCHMARKS.md "Fixed cost per month"): one reconciler pass as the schedule runs it, bounded by
 * the function's timeout as the deployed handler does, in a function of its own so the run's
 * figures are not touched.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Reconciler } from '../../lib/engine/reconciler.js';
import { RECONCILER } from '../../lib/settings.js';
import { simulatedProvisioner } from './simulated-provisioner.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe("the simulated provisioner's pass at rest", () => {
  it("is one reconciler pass bounded by the reconciler function's timeout, outside the run's reconciler function", async () => {
    const { loop, design } = simulatedProvisioner();
    const run = Reconciler.prototype.run;
    const bounds: Array<number | undefined> = [];
    vi.spyOn(Reconciler.prototype, 'run').mockImplementation(function (this: Reconciler, options) {
      bounds.push(options?.remainingTimeMs);
      return run.call(this, options);
    });
    let pass: Awaited<ReturnType<typeof design.idleReconcilerPass>> | undefined;
    void design.idleReconcilerPass().then((measured) => (pass = measured));
    await loop.run({ done: () => pass !== undefined });

    expect(bounds).toEqual([RECONCILER.timeoutSeconds * 1000]);
    expect(pass?.memoryMiB).toBe(RECONCILER.memoryMiB);
    expect(pass?.billedMs).toBeGreaterThan(0);
    expect(design.reconcilerFunction.invocations).toBe(0);
    expect(design.reconcilerReport()).toEqual({ passes: 0, requeued: 0 });
  });
});
