/**
 * The simulated EC2 API as BENCHMARKS.md (What the simulation models) and `bench/sim/ec2.ts`
 * state it: half the round trip to reach EC2, the bucket and the action there, half to come back;
 * a request finding its bucket empty is counted, does nothing and fails with RequestLimitExceeded;
 * describes by id sent as the client under test sends them; the invariants a run must keep.
 */
import { describe, expect, it } from 'vitest';
import { EventLoop } from '../../bench/sim/event-loop.js';
import { Lognormal } from '../../bench/sim/latency.js';
import { Random } from '../../bench/sim/random.js';
import { ADAPTER_DESCRIBES, SDK_WAITER_DESCRIBES, SimulatedEc2, type DescribeStyle } from '../../bench/sim/ec2.js';
import { ProviderError, type ProviderAttachment, type ProviderVolume, type VolumeProvider } from '../../lib/engine/ports.js';
import { OWNERSHIP_TAGS } from '../../lib/settings.js';

const T0 = Date.UTC(2026, 0, 1);
/** A fixed 10 ms round trip, so times can be stated exactly. */
const ROUND_TRIP = new Lognormal(10, 10);

function volume(ebsVolumeId: string, attachments: ProviderAttachment[] = [], multiAttach = false): ProviderVolume {
  return { ebsVolumeId, state: 'in-use', availabilityZone: 'us-east-1a', sizeGiB: 8, volumeType: 'gp3', multiAttach, encrypted: true, attachments, tags: {} };
}

/** An EBS stand-in that records what reached it (ids per request, the time) and answers from `volumes`. */
function fakeEbs(loop: EventLoop, volumes = new Map<string, ProviderVolume>()) {
  const seen: Array<{ action: string; at: number; ids?: number }> = [];
  let nextCreated: string[] = [];
  const ebs = {
    createVolume: async () => {
      seen.push({ action: 'CreateVolume', at: loop.now() });
      return volume(nextCreated.shift() ?? 'vol-x');
    },
    describeVolumes: async (ids: string[]) => {
      seen.push({ action: 'DescribeVolumes', at: loop.now(), ids: ids.length });
      return ids.flatMap((id) => (volumes.has(id) ? [volumes.get(id)!] : []));
    },
    describeInstances: async (ids: string[]) => {
      seen.push({ action: 'DescribeInstances', at: loop.now(), ids: ids.length });
      return [];
    },
    describeVolumeModifications: async (ids: string[]) => {
      seen.push({ action: 'DescribeVolumesModifications', at: loop.now(), ids: ids.length });
      return [];
    },
    attachVolume: async () => {
      seen.push({ action: 'AttachVolume', at: loop.now() });
    },
    listOwnedVolumes: async () => ({ items: [] }),
    findOwnedVolumes: async () => [],
  } as unknown as VolumeProvider;
  return { ebs, seen, volumes, createNext: (ids: string[]) => (nextCreated = ids) };
}

function setUp(style?: DescribeStyle) {
  const loop = new EventLoop(T0);
  const fake = fakeEbs(loop);
  const ec2 = new SimulatedEc2(loop, new Random(1), fake.ebs, ROUND_TRIP, style);
  return { loop, ec2, ...fake };
}

async function inLoop<T>(loop: EventLoop, work: () => Promise<T>): Promise<T> {
  const running = work();
  await loop.run({ done: () => false, untilMs: T0 + 3_600_000 });
  return running;
}

const ids = (n: number) => Array.from({ length: n }, (_, i) => `vol-${i}`);
const createRequest = (lifecycle: string) => ({ clientToken: 't', availabilityZone: 'us-east-1a', spec: { sizeGiB: 8, volumeType: 'gp3' }, tags: { [OWNERSHIP_TAGS.record]: lifecycle } }) as never;

describe('the simulated EC2 API', () => {
  it('acts half a round trip after the request is sent and answers half a round trip later', async () => {
    const { loop, ec2, seen } = setUp();
    const endedAt = await inLoop(loop, async () => {
      await ec2.createVolume(createRequest('v-1'));
      return loop.now();
    });
    expect(seen).toEqual([{ action: 'CreateVolume', at: T0 + 5 }]);
    expect(endedAt).toBe(T0 + 10);
  });

  it('counts a request finding its bucket empty, does nothing, and fails it with RequestLimitExceeded after the full round trip', async () => {
    const { loop, ec2, seen } = setUp();
    for (let i = 0; i < 100; i++) expect(ec2.limiter.admit('CreateVolume', T0 + 5)).toBe(true);
    const outcome = await inLoop(loop, async () => {
      const error = await ec2.createVolume(createRequest('v-1')).catch((e: unknown) => e);
      return { error, endedAt: loop.now() };
    });
    expect(outcome.error).toBeInstanceOf(ProviderError);
    expect((outcome.error as ProviderError).code).toBe('RequestLimitExceeded');
    expect(outcome.endedAt).toBe(T0 + 10);
    expect(seen).toEqual([]);
    expect([ec2.calls.CreateVolume, ec2.throttled.CreateVolume, ec2.totalCalls, ec2.totalThrottled]).toEqual([1, 1, 1, 1]);
  });

  it("sends the adapter's describes by id 200 values a request, from the standard non-mutating bucket", async () => {
    const { loop, ec2, seen } = setUp(ADAPTER_DESCRIBES);
    await inLoop(loop, async () => {
      await ec2.describeVolumes(ids(450));
      await ec2.describeInstances(ids(201));
    });
    expect(seen.map((s) => [s.action, s.ids])).toEqual([
      ['DescribeVolumes', 200],
      ['DescribeVolumes', 200],
      ['DescribeVolumes', 50],
      ['DescribeInstances', 200],
      ['DescribeInstances', 1],
    ]);
    expect([ec2.limiter.buckets.nonMutating.admitted, ec2.limiter.buckets.unfilteredNonMutating.admitted]).toEqual([5, 0]);
    expect([ec2.calls.DescribeVolumes, ec2.calls.DescribeInstances]).toEqual([3, 2]);
  });

  it("sends an SDK waiter's describes by id 500 a request, from the unfiltered bucket", async () => {
    const { loop, ec2, seen } = setUp(SDK_WAITER_DESCRIBES);
    await inLoop(loop, async () => {
      await ec2.describeVolumes(ids(1001));
      await ec2.describeInstances(ids(450));
    });
    expect(seen.map((s) => [s.action, s.ids])).toEqual([
      ['DescribeVolumes', 500],
      ['DescribeVolumes', 500],
      ['DescribeVolumes', 1],
      ['DescribeInstances', 450],
    ]);
    expect([ec2.limiter.buckets.nonMutating.admitted, ec2.limiter.buckets.unfilteredNonMutating.admitted]).toEqual([0, 4]);
  });

  it('sends modification describes by filter, 200 values a request, and owned-volume listings tag-filtered, both from the standard non-mutating bucket, whatever the client', async () => {
    const { loop, ec2, seen } = setUp(SDK_WAITER_DESCRIBES);
    await inLoop(loop, async () => {
      await ec2.describeVolumeModifications(ids(450));
      await ec2.listOwnedVolumes({ limit: 100 });
      await ec2.findOwnedVolumes('v-1');
    });
    expect(seen.map((s) => s.ids)).toEqual([200, 200, 50]);
    expect([ec2.limiter.buckets.nonMutating.admitted, ec2.limiter.buckets.unfilteredNonMutating.admitted]).toEqual([5, 0]);
    expect([ec2.calls.DescribeVolumesModifications, ec2.calls.DescribeVolumes]).toEqual([3, 2]);
  });

  it("keeps every volume created for a lifecycle, and as its latest the last one created, an idempotent repeat of an earlier one aside", async () => {
    const { loop, ec2, createNext } = setUp();
    createNext(['vol-a', 'vol-b', 'vol-a']);
    await inLoop(loop, async () => {
      for (let i = 0; i < 3; i++) await ec2.createVolume(createRequest('v-1'));
    });
    expect([...ec2.volumesByLifecycle.get('v-1')!]).toEqual(['vol-a', 'vol-b']);
    expect(ec2.latestVolumeByLifecycle.get('v-1')).toBe('vol-b');
  });
});

describe("the simulated EC2 API's attach invariants", () => {
  const live = (instanceId: string, device = '/dev/xvdb'): ProviderAttachment => ({ instanceId, device, state: 'attached' });
  const gone = (instanceId: string, device = '/dev/xvdb'): ProviderAttachment => ({ instanceId, device, state: 'detached' });

  async function attachAll(volumes: ProviderVolume[], attaches: Array<[string, string, string]>, after?: (state: Map<string, ProviderVolume>, step: number) => void) {
    const { loop, ec2, volumes: state } = setUp();
    for (const v of volumes) state.set(v.ebsVolumeId, v);
    await inLoop(loop, async () => {
      for (const [step, [ebsVolumeId, instanceId, device]] of attaches.entries()) {
        await ec2.attachVolume({ ebsVolumeId, instanceId, device });
        after?.(state, step);
      }
    });
    return ec2.doubleAttaches;
  }

  it('counts a single-attach volume live on two instances, not a Multi-Attach one nor one whose other attachment is detached', async () => {
    expect(await attachAll([volume('vol-a', [live('i-1'), live('i-2')])], [['vol-a', 'i-2', '/dev/xvdb']])).toBe(1);
    expect(await attachAll([volume('vol-a', [live('i-1'), live('i-2')], true)], [['vol-a', 'i-2', '/dev/xvdb']])).toBe(0);
    expect(await attachAll([volume('vol-a', [gone('i-1'), live('i-2')])], [['vol-a', 'i-2', '/dev/xvdb']])).toBe(0);
  });

  it('counts two volumes live on one device of an instance, not a device taken again after its volume left it, nor a volume attached again where it was', async () => {
    const a = volume('vol-a', [live('i-1')]);
    const b = volume('vol-b', [live('i-1')]);
    expect(await attachAll([a, b], [['vol-a', 'i-1', '/dev/xvdb'], ['vol-b', 'i-1', '/dev/xvdb']])).toBe(1);
    expect(
      await attachAll([a, b], [['vol-a', 'i-1', '/dev/xvdb'], ['vol-b', 'i-1', '/dev/xvdb']], (state, step) => {
        if (step === 0) state.set('vol-a', volume('vol-a', [gone('i-1')]));
      }),
    ).toBe(0);
    expect(await attachAll([a], [['vol-a', 'i-1', '/dev/xvdb'], ['vol-a', 'i-1', '/dev/xvdb']])).toBe(0);
  });
});
