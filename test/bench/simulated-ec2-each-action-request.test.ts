/**
 * Every EC2 action of the simulated API (`bench/sim/ec2.ts`, BENCHMARKS.md, What the simulation
 * models) is a request: half the round trip to reach EC2, its bucket and the action there, half
 * to come back, the whole answer one round trip after the request whether the action succeeded
 * or failed; each is counted under its own action and takes its token from its own bucket.
 */
import { describe, expect, it } from 'vitest';
import { EventLoop } from '../../bench/sim/event-loop.js';
import { Lognormal } from '../../bench/sim/latency.js';
import { Random } from '../../bench/sim/random.js';
import { SimulatedEc2 } from '../../bench/sim/ec2.js';
import type { Ec2Action, Ec2BucketName } from '../../bench/sim/token-bucket.js';
import { ProviderError, type VolumeProvider } from '../../lib/engine/ports.js';

const T0 = Date.UTC(2026, 0, 1);

/** An EBS stand-in recording when each action reached it; `failing` actions are refused. */
function fakeEbs(loop: EventLoop, failing = new Set<string>()) {
  const seen: Array<[string, number]> = [];
  const act = (name: string) => async () => {
    seen.push([name, loop.now()]);
    if (failing.has(name)) throw new ProviderError('invalid-request', 'IncorrectState', `${name} refused.`);
  };
  const ebs = {
    attachVolume: act('attachVolume'),
    detachVolume: act('detachVolume'),
    deleteVolume: act('deleteVolume'),
    modifyVolume: act('modifyVolume'),
    createTags: act('createTags'),
    deleteTags: act('deleteTags'),
    describeVolumes: async () => [],
  } as unknown as VolumeProvider;
  return { ebs, seen };
}

async function inLoop<T>(loop: EventLoop, work: () => Promise<T>): Promise<T> {
  const running = work();
  await loop.run({ done: () => false, untilMs: T0 + 3_600_000 });
  return running;
}

const request = { ebsVolumeId: 'vol-a', instanceId: 'i-1', device: '/dev/xvdb' };
const CALLS: Array<{ method: string; action: Ec2Action; bucket: Ec2BucketName; call: (ec2: SimulatedEc2) => Promise<void> }> = [
  { method: 'attachVolume', action: 'AttachVolume', bucket: 'mutating', call: (ec2) => ec2.attachVolume(request) },
  { method: 'detachVolume', action: 'DetachVolume', bucket: 'mutating', call: (ec2) => ec2.detachVolume(request) },
  { method: 'modifyVolume', action: 'ModifyVolume', bucket: 'mutating', call: (ec2) => ec2.modifyVolume({ ebsVolumeId: 'vol-a', sizeGiB: 16 }) },
  { method: 'deleteVolume', action: 'DeleteVolume', bucket: 'DeleteVolume', call: (ec2) => ec2.deleteVolume('vol-a') },
  { method: 'createTags', action: 'CreateTags', bucket: 'CreateTags', call: (ec2) => ec2.createTags('vol-a', { a: 'b' }) },
  { method: 'deleteTags', action: 'DeleteTags', bucket: 'DeleteTags', call: (ec2) => ec2.deleteTags('vol-a', ['a']) },
];

describe('each action of the simulated EC2 API', () => {
  for (const { method, action, bucket, call } of CALLS) {
    it(`sends ${action} as one request of its own, from the ${bucket} bucket, acting half a round trip in and answering after the whole`, async () => {
      const loop = new EventLoop(T0);
      const { ebs, seen } = fakeEbs(loop);
      const ec2 = new SimulatedEc2(loop, new Random(1), ebs, new Lognormal(10, 10));
      const endedAt = await inLoop(loop, async () => {
        await call(ec2);
        return loop.now();
      });
      expect(seen).toEqual([[method, T0 + 5]]);
      expect(endedAt).toBe(T0 + 10);
      expect(Object.entries(ec2.calls).filter(([, n]) => n > 0)).toEqual([[action, 1]]);
      expect(Object.entries(ec2.limiter.buckets).filter(([, b]) => b.admitted > 0).map(([name, b]) => [name, b.admitted])).toEqual([[bucket, 1]]);
    });
  }

  it('answers a refused action one whole round trip after the request, as a successful one', async () => {
    const loop = new EventLoop(T0);
    const { ebs, seen } = fakeEbs(loop, new Set(['detachVolume']));
    const ec2 = new SimulatedEc2(loop, new Random(1), ebs, new Lognormal(10, 10));
    const outcome = await inLoop(loop, async () => {
      const error = await ec2.detachVolume(request).catch((e: unknown) => e);
      return { error, endedAt: loop.now() };
    });
    expect((outcome.error as ProviderError).code).toBe('IncorrectState');
    expect(seen).toEqual([['detachVolume', T0 + 5]]);
    expect(outcome.endedAt).toBe(T0 + 10);
  });

  it('answers one round trip after the request when the round trip is an odd number of milliseconds', async () => {
    const loop = new EventLoop(T0);
    const { ebs, seen } = fakeEbs(loop);
    const ec2 = new SimulatedEc2(loop, new Random(1), ebs, new Lognormal(11, 11));
    const endedAt = await inLoop(loop, async () => {
      await ec2.deleteVolume('vol-a');
      return loop.now();
    });
    expect(seen[0]![1] - T0).toBeGreaterThanOrEqual(5);
    expect(seen[0]![1] - T0).toBeLessThanOrEqual(6);
    expect(endedAt).toBe(T0 + 11);
  });

  it('counts throttled requests apart from the requests received', async () => {
    const loop = new EventLoop(T0);
    const { ebs } = fakeEbs(loop);
    const ec2 = new SimulatedEc2(loop, new Random(1), ebs, new Lognormal(10, 10));
    for (let i = 0; i < 99; i++) ec2.limiter.admit('DeleteVolume', T0);
    await inLoop(loop, async () => {
      await ec2.deleteVolume('vol-a');
      await ec2.deleteVolume('vol-a').catch(() => undefined);
    });
    expect([ec2.calls.DeleteVolume, ec2.throttled.DeleteVolume]).toEqual([2, 1]);
    expect([ec2.totalCalls, ec2.totalThrottled]).toEqual([2, 1]);
  });
});
