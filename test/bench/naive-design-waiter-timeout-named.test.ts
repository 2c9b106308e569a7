/**
 * The naive design (BENCHMARKS.md, What the simulation models) ends a lifecycle in error when a
 * waiter gives up at its maxWaitTime (300 s), naming the SDK's error, `TimeoutError`, as it names
 * an EC2 error's code.
 */
import { describe, expect, it } from 'vitest';
import { NaiveDesign } from '../../bench/naive/design.js';
import { createSimulatedEbs } from '../../bench/sim/ebs.js';
import { SDK_WAITER_DESCRIBES, SimulatedEc2 } from '../../bench/sim/ec2.js';
import { EventLoop } from '../../bench/sim/event-loop.js';
import { DEFAULT_LATENCIES } from '../../bench/sim/latency.js';
import { Random } from '../../bench/sim/random.js';
import type { VolumeProvider } from '../../lib/engine/ports.js';

const T0 = Date.UTC(2026, 0, 1);
const INSTANCE = { instanceId: 'i-0123456789abcdef0', availabilityZone: 'us-east-1a', maxAttachments: 27 };

describe('the naive design', () => {
  it('ends a lifecycle in error naming TimeoutError when the volume never reads in-use within the wait', async () => {
    const loop = new EventLoop(T0);
    const random = new Random(3);
    const ebs = createSimulatedEbs(loop, random.fork(), DEFAULT_LATENCIES, [INSTANCE]);
    const ec2 = new SimulatedEc2(loop, random.fork(), ebs.provider, DEFAULT_LATENCIES.ec2Request, SDK_WAITER_DESCRIBES);
    // EC2 answers the attach, but the volume stays available.
    const provider: VolumeProvider = Object.create(ec2) as VolumeProvider;
    provider.attachVolume = () => Promise.resolve();
    const seen: string[] = [];
    const design = new NaiveDesign({
      loop,
      random: random.fork(),
      ec2: provider,
      latencies: DEFAULT_LATENCIES,
      shards: 1,
      duplicateRate: 0,
      sharedRateBudget: true,
      instances: [INSTANCE],
      observer: {
        attached: (id) => seen.push(`attached ${id}`),
        finished: (id) => seen.push(`finished ${id}`),
        failed: (id, reason) => seen.push(`failed ${id}: ${reason}`),
      },
    });
    void design.request({ id: 'data-1', instanceId: INSTANCE.instanceId, availabilityZone: INSTANCE.availabilityZone, device: '/dev/sdg', sizeGiB: 20 });
    await loop.run();
    const [volumeId] = ebs.createdIds();
    expect(seen).toEqual([`failed data-1: TimeoutError: waiting for ${volumeId} to be in-use`]);
    expect(design.operationsFailedByThrottling()).toBe(0);
  });
});
