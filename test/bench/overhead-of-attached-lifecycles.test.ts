/**
 * The overhead percentiles are taken over the lifecycles whose volume the client saw attached
 * (`DesignResult.overheadP50Ms`: request → attached, less EBS's own times): a lifecycle that failed
 * before it was attached has no overhead and does not count.
 */
import { describe, expect, it } from 'vitest';
import { runDesign } from '../../bench/run.js';
import type { WorkloadSpec } from '../../bench/workload.js';

const burst = (volumes: number): WorkloadSpec => ({ name: 'burst', volumes, arrival: { kind: 'burst' }, holdMs: 1000 });

describe('the overhead of a run in which lifecycles failed before attaching', () => {
  it("gives finite percentiles, the p50 no more than the p99, within the run's makespan", async () => {
    // The naive design's burst of 200 gives up on many lifecycles when EC2 throttles their CreateVolume.
    const result = await runDesign({ design: 'naive', workload: burst(200), seed: 1 });
    expect(result.failed).toBeGreaterThan(50);
    expect(result.converged).toBeGreaterThan(0);
    expect(Number.isFinite(result.overheadP50Ms)).toBe(true);
    expect(Number.isFinite(result.overheadP99Ms)).toBe(true);
    expect(result.overheadP50Ms).toBeGreaterThan(0);
    expect(result.overheadP50Ms).toBeLessThanOrEqual(result.overheadP99Ms);
    expect(result.overheadP99Ms).toBeLessThan(result.makespanMs);
  }, 60_000);
});
