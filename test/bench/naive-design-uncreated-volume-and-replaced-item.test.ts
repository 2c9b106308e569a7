/**
 * The naive design (BENCHMARKS.md, What the simulation models): a lifecycle whose CreateVolume fails
 * for good ends in error with no volume; asked for its deletion, the worker has nothing to detach or
 * delete and removes the item. A client's put over an existing item is a MODIFY stream record, as
 * DynamoDB streams give for a PutItem that replaces an item, so it creates no second volume.
 */
import { describe, expect, it, vi } from 'vitest';
import { NaiveDesign } from '../../bench/naive/design.js';
import { createSimulatedEbs } from '../../bench/sim/ebs.js';
import { SDK_WAITER_DESCRIBES, SimulatedEc2 } from '../../bench/sim/ec2.js';
import { EventLoop } from '../../bench/sim/event-loop.js';
import { DEFAULT_LATENCIES } from '../../bench/sim/latency.js';
import { Random } from '../../bench/sim/random.js';
import { ProviderError, type VolumeProvider } from '../../lib/engine/ports.js';
import type { VolumeRequest } from '../../bench/workload.js';

const T0 = Date.UTC(2026, 0, 1);
const INSTANCE = { instanceId: 'i-0123456789abcdef0', availabilityZone: 'us-east-1a', maxAttachments: 27 };
const REQUEST: VolumeRequest = { id: 'data-1', instanceId: INSTANCE.instanceId, availabilityZone: INSTANCE.availabilityZone, device: '/dev/sdg', sizeGiB: 20 };

function naive(refuseCreate: boolean) {
  const loop = new EventLoop(T0);
  const random = new Random(7);
  const ebs = createSimulatedEbs(loop, random.fork(), DEFAULT_LATENCIES, [INSTANCE]);
  const ec2 = new SimulatedEc2(loop, random.fork(), ebs.provider, DEFAULT_LATENCIES.ec2Request, SDK_WAITER_DESCRIBES);
  const provider: VolumeProvider = Object.create(ec2) as VolumeProvider;
  const deletes: unknown[] = [];
  provider.createVolume = (request) =>
    refuseCreate ? Promise.reject(new ProviderError('invalid-request', 'InvalidParameterValue', 'Invalid availability zone.')) : ec2.createVolume(request);
  provider.deleteVolume = (ebsVolumeId) => {
    deletes.push(ebsVolumeId);
    return ec2.deleteVolume(ebsVolumeId);
  };
  const seen: string[] = [];
  const design: NaiveDesign = new NaiveDesign({
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
      failed: (id, reason) => {
        seen.push(`failed ${id}: ${reason}`);
        void design.release(id);
      },
    },
  });
  return { loop, ec2, design, seen, deletes };
}

describe('the naive design', () => {
  it('removes the item of a lifecycle whose volume was never created, calling no DeleteVolume, when asked', async () => {
    const { loop, ec2, design, seen, deletes } = naive(true);
    void design.request(REQUEST);
    await loop.run();
    expect(seen).toEqual(['failed data-1: InvalidParameterValue: Invalid availability zone.', 'finished data-1']);
    expect(deletes).toEqual([]);
    expect(ec2.calls).toMatchObject({ DetachVolume: 0, DeleteVolume: 0 });
    expect(design.table.size()).toBe(0);
  });

  it('streams a put over an existing item as a MODIFY, which creates no second volume', async () => {
    const { loop, ec2, design } = naive(false);
    const publish = vi.spyOn(design.stream, 'publish');
    design.table.put({ ...REQUEST, life: 'alive', state: 'requested' });
    design.table.put({ ...REQUEST, life: 'alive', state: 'requested' });
    loop.after(1_000_000, () => undefined);
    await loop.run({ untilMs: T0 + 1_000_000 });
    expect(publish.mock.calls.slice(0, 2).map(([, change]) => change.eventName)).toEqual(['INSERT', 'MODIFY']);
    expect(ec2.calls.CreateVolume).toBe(1);
  });
});
