/**
 * The benchmark's invariants on a small workload, run in CI: the provisioner, driven through the
 * simulated AWS, converges every lifecycle without leaks, duplicates or double attaches and
 * within the EC2 call budget; and a run is a pure function of its seed.
 */
import { describe, expect, it } from 'vitest';
import { formatTable, type DesignResult } from '../../bench/report.js';
import { runDesign } from '../../bench/run.js';
import type { WorkloadSpec } from '../../bench/workload.js';

const burst = (volumes: number): WorkloadSpec => ({ name: 'burst', volumes, arrival: { kind: 'burst' }, holdMs: 10_000 });

function comparable(result: DesignResult): Omit<DesignResult, 'wallMs'> {
  const { wallMs: _wallMs, ...rest } = result;
  return rest;
}

describe('scale simulation (N = 200)', () => {
  let provisioner: Promise<DesignResult> | undefined;
  const runProvisioner = () => (provisioner ??= runDesign({ design: 'provisioner', workload: burst(200), seed: 1 }));

  it('provisions, attaches, detaches and deletes every volume: none leaked, duplicated or double attached', async () => {
    const result = await runProvisioner();
    console.log(formatTable([result]));
    if (result.failureReasons.length > 0) console.log('failures:', result.failureReasons);
    expect(result.unfinished).toBe(0);
    expect(result.failed).toBe(0);
    expect(result.converged).toBe(200);
    expect(result.leakedVolumes).toBe(0);
    expect(result.duplicateVolumes).toBe(0);
    expect(result.doubleAttaches).toBe(0);
    expect(result.ec2Calls.CreateVolume).toBeGreaterThanOrEqual(200);
    expect(result.requestLimitExceeded).toBe(0);
    // The bound takes every EBS step at the least a draw can be: no run can beat it.
    expect(result.makespanMs).toBeGreaterThanOrEqual(result.lowerBound.ms);
  }, 120_000);

  it('makes one CreateVolume, DetachVolume and DeleteVolume per lifecycle, at most one extra AttachVolume per 100, and stays within 4.28 EC2 calls per lifecycle', async () => {
    const result = await runProvisioner();
    console.log(`EC2 calls per lifecycle: ${result.ec2CallsPerLifecycle.toFixed(3)}`, result.ec2Calls);
    for (const action of ['CreateVolume', 'DetachVolume', 'DeleteVolume'] as const) expect(result.ec2Calls[action]).toBe(200);
    // Two executor environments attaching volumes to the same instance at the same moment pick
    // different names, each the free name at its attach's place among those waiting, as both read
    // them. Environments that read the waiting attaches at different moments can still pick the same
    // name; EC2 refuses one AttachVolume ("attachment point /dev/sdf is already in use") and that
    // executor retries with another. Seed 1 has none; one such retry per 100 lifecycles is allowed.
    expect(result.ec2Calls.AttachVolume).toBeGreaterThanOrEqual(200);
    expect(result.ec2Calls.AttachVolume).toBeLessThanOrEqual(202);
    // Measured 4.210 (seed 1; 4.290 before attaches took device names by rank; 4.205–4.235 for seeds
    // 1–8 before the client went through the simulated API): a regression guard, above the target below.
    // Operations that take their tokens ahead (BENCHMARKS.md) cost ~0.03 more here, for 8 % less
    // makespan and a quarter less cost in this burst.
    expect(result.ec2CallsPerLifecycle).toBeLessThanOrEqual(4.28);
  }, 120_000);

  // Known miss, kept visible: at N = 200 the engine spends about 0.2 DescribeVolumes and 0.01
  // DescribeInstances per lifecycle (see BENCHMARKS.md, Targets). `it.fails` turns red the day the
  // engine meets the budget of 4.1; then make it `it`.
  it.fails('keeps EC2 calls per lifecycle within 4.1 (known miss, see BENCHMARKS.md)', async () => {
    const result = await runProvisioner();
    expect(result.ec2CallsPerLifecycle).toBeLessThanOrEqual(4.1);
  }, 120_000);

  it('gives identical results for the same seed, and different ones for another seed', async () => {
    const first = await runDesign({ design: 'provisioner', workload: burst(60), seed: 11 });
    const again = await runDesign({ design: 'provisioner', workload: burst(60), seed: 11 });
    const other = await runDesign({ design: 'provisioner', workload: burst(60), seed: 12 });
    expect(comparable(again)).toEqual(comparable(first));
    expect(comparable(other)).not.toEqual(comparable(first));
    const naive = await runDesign({ design: 'naive', workload: burst(60), seed: 11 });
    const naiveAgain = await runDesign({ design: 'naive', workload: burst(60), seed: 11 });
    expect(comparable(naiveAgain)).toEqual(comparable(naive));
  }, 120_000);

  it('with one EC2 rate budget shared by the executor environments a burst is attached sooner than with a fifth each', async () => {
    const shared = await runDesign({ design: 'provisioner', workload: burst(100), seed: 1 });
    const fifths = await runDesign({ design: 'provisioner', workload: burst(100), seed: 1, sharedRateBudget: false });
    const seconds = (ms: number) => (ms / 1000).toFixed(1);
    console.log(`burst of 100, shared vs fifths: overhead p50 ${seconds(shared.overheadP50Ms)} / ${seconds(fifths.overheadP50Ms)} s, makespan ${seconds(shared.makespanMs)} / ${seconds(fifths.makespanMs)} s`);
    for (const result of [shared, fifths]) {
      expect(result.converged).toBe(100);
      expect(result.requestLimitExceeded).toBe(0);
    }
    // Measured 7.5 s against 12.6 s (seed 1): the creates and attaches go at once instead of a fifth at a time.
    expect(shared.overheadP50Ms).toBeLessThan(fifths.overheadP50Ms * 0.7);
    expect(shared.makespanMs).toBeLessThanOrEqual(fifths.makespanMs);
  }, 120_000);

  it('runs the reconciler on its schedule, which leaves calls waiting in line for tokens alone', async () => {
    // A burst of 1000 keeps calls waiting for the mutating bucket for ~400 s: the pass at 300 s finds hundreds pending.
    const result = await runDesign({ design: 'provisioner', workload: burst(1000), seed: 1 });
    console.log('burst of 1000: reconciler', result.reconciler, `makespan / bound ${result.makespanToBound.toFixed(3)}`);
    expect(result.functions.find((fn) => fn.name === 'reconciler')?.invocations).toBe(1);
    expect(result.reconciler).toEqual({ passes: 1, requeued: expect.any(Number) });
    expect(result.reconciler!.requeued).toBeLessThan(20);
    expect(result.converged).toBe(1000);
    expect(result.requestLimitExceeded).toBe(0);
  }, 120_000);

  it('drives the naive design through the same simulated AWS, waiter polls and all', async () => {
    const result = await runDesign({ design: 'naive', workload: burst(200), seed: 1 });
    console.log(formatTable([result]));
    // Every lifecycle ends, most of them converged (120 of 200, seed 1): with none, the poll count below would check nothing.
    expect(result.unfinished).toBe(0);
    expect(result.converged).toBeGreaterThanOrEqual(100);
    // Each lifecycle polls DescribeVolumes at least three times (available, in-use, available).
    expect(result.ec2Calls.DescribeVolumes).toBeGreaterThanOrEqual(3 * result.converged);
    expect(result.ec2Calls.CreateVolume).toBeGreaterThanOrEqual(200);
    // 200 CreateVolume calls at once overrun the 100-token bucket: the naive design gets throttled.
    expect(result.requestLimitExceeded).toBeGreaterThan(0);
  }, 120_000);
});
