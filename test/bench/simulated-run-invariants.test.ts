/**
 * How a simulated run judges its lifecycles (bench/run.ts, BENCHMARKS.md "What the simulation
 * models"): a lifecycle is converged once its records are gone, unfinished when it neither
 * finished nor failed by the run's end; a volume EC2 still holds after the run has settled is
 * leaked; a lifecycle that got a second volume counts a duplicate; double attaches are those EC2
 * saw; the overhead is request → attached less the volume's own create and attach times; the
 * timeline is sampled from the first request to the last lifecycle's end.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ProvisionerDesign } from '../../bench/provisioner.js';
import { runDesign } from '../../bench/run.js';
import { SimulatedEc2 } from '../../bench/sim/ec2.js';
import { DEFAULT_LATENCIES, Lognormal } from '../../bench/sim/latency.js';
import type { WorkloadSpec } from '../../bench/workload.js';

const burst = (volumes: number): WorkloadSpec => ({ name: 'burst', volumes, arrival: { kind: 'burst' }, holdMs: 1000 });
const FIRST = 'vol-req-000000';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('a simulated run', () => {
  it('reports a lifecycle never released as unfinished and its volume as leaked, and stops at its virtual time limit', async () => {
    const release = ProvisionerDesign.prototype.release;
    vi.spyOn(ProvisionerDesign.prototype, 'release').mockImplementation(function (this: ProvisionerDesign, id: string) {
      return id === FIRST ? Promise.resolve() : release.call(this, id);
    });
    const result = await runDesign({ design: 'provisioner', workload: burst(3), seed: 1, maxVirtualMs: 600_000 });
    vi.restoreAllMocks();
    const released = await runDesign({ design: 'provisioner', workload: burst(3), seed: 1 });

    expect(result.converged).toBe(2);
    expect(result.failed).toBe(0);
    expect(result.unfinished).toBe(1);
    expect(result.leakedVolumes).toBe(1);
    expect(result.duplicateVolumes).toBe(0);
    expect(result.doubleAttaches).toBe(0);
    // Its attach counts in the overhead as the others' do: the same as when it is released.
    expect([result.overheadP50Ms, result.overheadP99Ms]).toEqual([released.overheadP50Ms, released.overheadP99Ms]);
    // Calls and cost per lifecycle requested; makespan to the last lifecycle that ended, against the bound.
    expect(result.ec2CallsPerLifecycle).toBe(result.ec2CallsTotal / 3);
    expect(result.makespanToBound).toBe(result.makespanMs / result.lowerBound.ms);
    // Converged lifecycles pay for the one that never ended.
    expect(result.costPer1000Converged).toBeCloseTo((result.cost.total / 2) * 1000, 12);
    expect(result.costPer1000Requested).toBeCloseTo((result.cost.total / 3) * 1000, 12);
    // The last sample, at the time limit, holds the unfinished lifecycle's volume in use.
    const last = result.timeline[result.timeline.length - 1]!;
    expect(last.atMs).toBe(600_000);
    expect(last.counts).toMatchObject({ finished: 2, failed: 0, 'in-use': 1, waiting: 0, creating: 0, available: 0, deleting: 0 });
  }, 60_000);

  it('counts more volumes made for a lifecycle as duplicates, leaked while EC2 still holds them', async () => {
    const createVolume = SimulatedEc2.prototype.createVolume;
    let extra = 0;
    vi.spyOn(SimulatedEc2.prototype, 'createVolume').mockImplementation(async function (this: SimulatedEc2, request) {
      // Another volume for the lifecycle before and after the one the engine is answered with.
      const again = Object.values(request.tags).includes(FIRST) && extra++ === 0;
      if (again) await createVolume.call(this, { ...request, clientToken: `${request.clientToken}-before` });
      const volume = await createVolume.call(this, request);
      if (again) await createVolume.call(this, { ...request, clientToken: `${request.clientToken}-after` });
      return volume;
    });
    const result = await runDesign({ design: 'provisioner', workload: burst(3), seed: 1 });

    expect(extra).toBeGreaterThan(0);
    expect(result.converged).toBe(3);
    expect(result.duplicateVolumes).toBe(2);
    expect(result.leakedVolumes).toBe(2);
    expect(Number.isFinite(result.overheadP50Ms) && Number.isFinite(result.overheadP99Ms)).toBe(true);
  }, 60_000);

  it('reports the double attaches EC2 saw', async () => {
    const attachVolume = SimulatedEc2.prototype.attachVolume;
    vi.spyOn(SimulatedEc2.prototype, 'attachVolume').mockImplementation(async function (this: SimulatedEc2, request) {
      await attachVolume.call(this, request);
      this.doubleAttaches++;
    });
    const result = await runDesign({ design: 'provisioner', workload: burst(3), seed: 1 });
    expect(result.doubleAttaches).toBe(result.ec2Calls.AttachVolume);
    expect(result.doubleAttaches).toBeGreaterThanOrEqual(3);
  }, 60_000);

  it("takes the overhead as request → attached less the volume's own create and attach times", async () => {
    // EBS takes exactly 20 s to create and 10 s to attach: the overhead is what the pipeline adds.
    const latencies = { ...DEFAULT_LATENCIES, createVolume: new Lognormal(20_000, 20_000), attach: new Lognormal(10_000, 10_000) };
    const result = await runDesign({ design: 'provisioner', workload: burst(3), seed: 1, latencies });
    expect(result.converged).toBe(3);
    expect(result.overheadP50Ms).toBeGreaterThan(0);
    // Measured about 10 s of hops and checks (seed 1), well under the 30 s EBS takes itself.
    expect(result.overheadP99Ms).toBeLessThan(20_000);
    expect(result.overheadP50Ms).toBeLessThanOrEqual(result.overheadP99Ms);
  }, 60_000);

  it('samples the timeline every second of a short run from the first request, the last sample at the last lifecycle end, all finished', async () => {
    const result = await runDesign({ design: 'provisioner', workload: burst(3), seed: 1 });
    const times = result.timeline.map((sample) => sample.atMs);
    expect(times[0]).toBe(0);
    expect(times.slice(0, -1)).toEqual(times.slice(0, -1).map((_, i) => i * 1000));
    expect(times[times.length - 1]).toBe(result.makespanMs);
    expect(result.timeline[0]!.counts.waiting + result.timeline[0]!.counts.creating).toBe(3);
    // Each sample puts every lifecycle in one state; over the run each lifecycle passes through them all.
    for (const sample of result.timeline) expect(Object.values(sample.counts).reduce((sum, n) => sum + n, 0)).toBe(3);
    for (const state of ['creating', 'available', 'in-use', 'deleting'] as const) expect(result.timeline.some((sample) => sample.counts[state] > 0)).toBe(true);
    expect(result.timeline[result.timeline.length - 1]!.counts).toMatchObject({ finished: 3, waiting: 0, creating: 0, available: 0, 'in-use': 0, deleting: 0 });
  }, 60_000);

  it('samples a run whose lower bound is about 4 000 s every 10 s, as the burst of 10 000 is sampled', async () => {
    const result = await runDesign({ design: 'provisioner', workload: { name: 'burst', volumes: 1, arrival: { kind: 'burst' }, holdMs: 3_990_000 }, seed: 1 });
    expect(Math.round(result.lowerBound.ms / 1000)).toBe(3990);
    const times = result.timeline.map((sample) => sample.atMs).slice(0, -1);
    expect(times).toEqual(times.map((_, i) => i * 10_000));
    expect(times.length).toBeGreaterThan(390);
  }, 60_000);

  it('runs the reconciler on its schedule only until the last lifecycle ends, not while the run settles', async () => {
    // The one lifecycle ends a little before the first pass is due at 300 s; the run then settles for a minute.
    const result = await runDesign({ design: 'provisioner', workload: { name: 'burst', volumes: 1, arrival: { kind: 'burst' }, holdMs: 270_000 }, seed: 1 });
    expect(result.converged).toBe(1);
    expect(result.makespanMs).toBeLessThan(300_000);
    expect(result.makespanMs).toBeGreaterThan(240_000);
    expect(result.reconciler).toEqual({ passes: 0, requeued: 0 });
    expect(result.functions.find((fn) => fn.name === 'reconciler')?.invocations).toBe(0);
  }, 60_000);
});
