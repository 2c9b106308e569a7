import { describe, expect, it, vi } from 'vitest';
import { NAIVE_SETTINGS, NAIVE_STREAM_MAPPING, NaiveDesign } from '../../bench/naive/design.js';
import { createSimulatedEbs, type SimulatedEbs } from '../../bench/sim/ebs.js';
import { SDK_WAITER_DESCRIBES, SimulatedEc2 } from '../../bench/sim/ec2.js';
import { EventLoop } from '../../bench/sim/event-loop.js';
import { DEFAULT_LATENCIES, Lognormal, type LatencyModel } from '../../bench/sim/latency.js';
import { Random } from '../../bench/sim/random.js';
import { ProviderError, type CreateVolumeRequest, type VolumeProvider } from '../../lib/engine/ports.js';
import { OWNERSHIP_TAGS } from '../../lib/settings.js';
import type { VolumeRequest } from '../../bench/workload.js';

// The naive design (BENCHMARKS.md, What the simulation models): a stream-triggered dispatcher fans
// each record out to a worker; the worker creates a gp3 volume, waits for `available`, attaches,
// waits for `in-use` and writes the status; on deletion it detaches, waits for `available`, deletes
// and removes the item. A failure it cannot retry away ends the lifecycle in `error` and leaves the
// volume behind. Each write is one write unit.

const T0 = Date.UTC(2026, 0, 1);
const INSTANCE = { instanceId: 'i-0123456789abcdef0', availabilityZone: 'us-east-1a', maxAttachments: 27 };

function volumeRequest(id: string, device: string): VolumeRequest {
  return { id, instanceId: INSTANCE.instanceId, availabilityZone: INSTANCE.availabilityZone, device, sizeGiB: 20 };
}

interface Options {
  /** Calls that throw instead of reaching EC2, each entry once. */
  failing?: Partial<Record<'createVolume' | 'attachVolume' | 'deleteVolume', ProviderError[]>>;
  /** EC2 answers every AttachVolume, but the volume stays available. */
  attachWithoutEffect?: boolean;
  latencies?: LatencyModel;
  /** The client also asks for the deletion of a lifecycle it sees in error. */
  releaseFailed?: boolean;
  /** How long the client keeps a volume it sees attached before it asks for the deletion. */
  holdMs?: number;
  /** DynamoDB stream shards. */
  shards?: number;
}

/** The naive design on simulated EC2, with a client that asks for the deletion once it sees the volume attached. */
function naive({ failing = {}, attachWithoutEffect = false, latencies = DEFAULT_LATENCIES, releaseFailed = false, holdMs = 0, shards = 1 }: Options = {}) {
  const loop = new EventLoop(T0);
  const random = new Random(5);
  const instances = [INSTANCE];
  const ebs = createSimulatedEbs(loop, random.fork(), latencies, instances);
  const ec2 = new SimulatedEc2(loop, random.fork(), ebs.provider, latencies.ec2Request, SDK_WAITER_DESCRIBES);
  const at = () => loop.now() - T0;
  const creates: (CreateVolumeRequest & { at: number })[] = [];
  const attaches: { ebsVolumeId: string; instanceId: string; device: string }[] = [];
  const detachesAt: number[] = [];
  /** When each DescribeVolumes answered, and the states it listed. */
  const describes: { at: number; states: string[] }[] = [];
  const deletesAnsweredAt: number[] = [];
  /** The volumes each DeleteVolume asked for, answered or not. */
  const deletesAsked: string[] = [];
  const faulty: VolumeProvider = Object.create(ec2) as VolumeProvider;
  faulty.createVolume = async (request) => {
    creates.push({ ...request, at: at() });
    const error = failing.createVolume?.shift();
    if (error) throw error;
    return ec2.createVolume(request);
  };
  faulty.describeVolumes = async (ids) => {
    const volumes = await ec2.describeVolumes(ids);
    describes.push({ at: at(), states: volumes.map((volume) => volume.state) });
    return volumes;
  };
  faulty.attachVolume = async (request) => {
    attaches.push(request);
    const error = failing.attachVolume?.shift();
    if (error) throw error;
    if (attachWithoutEffect) return;
    return ec2.attachVolume(request);
  };
  faulty.detachVolume = (request) => {
    detachesAt.push(at());
    return ec2.detachVolume(request);
  };
  faulty.deleteVolume = async (ebsVolumeId) => {
    deletesAsked.push(ebsVolumeId);
    const error = failing.deleteVolume?.shift();
    if (error) throw error;
    await ec2.deleteVolume(ebsVolumeId);
    deletesAnsweredAt.push(at());
  };
  const seen: string[] = [];
  const seenAt: number[] = [];
  const released = new Set<string>();
  const design = new NaiveDesign({
    loop,
    random: random.fork(),
    ec2: faulty,
    latencies,
    shards,
    duplicateRate: 0,
    sharedRateBudget: true,
    instances,
    observer: {
      attached: (id) => {
        seen.push(`attached ${id}`);
        seenAt.push(at());
        if (released.has(id)) return;
        released.add(id);
        loop.after(holdMs, () => void design.release(id));
      },
      finished: (id) => {
        seen.push(`finished ${id}`);
        seenAt.push(at());
      },
      failed: (id, reason) => {
        seen.push(`failed ${id}: ${reason}`);
        seenAt.push(at());
        if (releaseFailed) void design.release(id);
      },
    },
  });
  return { loop, ebs, ec2, design, seen, seenAt, creates, attaches, detachesAt, describes, deletesAsked, deletesAnsweredAt };
}

/** The states of every volume the run created, a minute after it went quiet (a deletion under way has ended by then). */
async function volumeStatesLater(loop: EventLoop, ebs: SimulatedEbs): Promise<string[]> {
  loop.after(60_000, () => undefined);
  await loop.run();
  return (await ebs.model.describeVolumes(ebs.createdIds())).map((volume) => volume.state);
}

describe('the naive design', () => {
  it('creates the asked gp3 volume, attaches it where asked, then detaches, deletes it and removes the item', async () => {
    const { loop, ebs, ec2, design, seen, creates, attaches } = naive();
    const publish = vi.spyOn(design.stream, 'publish');
    void design.request(volumeRequest('data-1', '/dev/sdg'));
    void design.request(volumeRequest('data-2', '/dev/sdh'));
    await loop.run();
    expect(seen.filter((line) => line.endsWith('data-1'))).toEqual(['attached data-1', 'finished data-1']);
    expect(seen).toHaveLength(4);
    // Each change is a stream record keyed by its item's id (the table's partition key), so one item's records keep their order.
    expect(publish.mock.calls.map(([key, change]) => [key, change.eventName])).toEqual(
      expect.arrayContaining(['INSERT', 'MODIFY', 'MODIFY', 'REMOVE'].flatMap((eventName) => [['data-1', eventName], ['data-2', eventName]])),
    );
    expect(publish).toHaveBeenCalledTimes(8);
    const byRecord = creates.sort((a, b) => a.tags[OWNERSHIP_TAGS.record]!.localeCompare(b.tags[OWNERSHIP_TAGS.record]!));
    expect(byRecord.map((request) => [request.spec, request.tags[OWNERSHIP_TAGS.record]])).toEqual([
      [{ sizeGiB: 20, volumeType: 'gp3', availabilityZone: 'us-east-1a' }, 'data-1'],
      [{ sizeGiB: 20, volumeType: 'gp3', availabilityZone: 'us-east-1a' }, 'data-2'],
    ]);
    // The SDK draws a ClientToken per call: two lifecycles never share one.
    expect(new Set(creates.map((request) => request.clientToken)).size).toBe(2);
    expect(attaches.map(({ instanceId, device }) => [instanceId, device]).sort()).toEqual([
      [INSTANCE.instanceId, '/dev/sdg'],
      [INSTANCE.instanceId, '/dev/sdh'],
    ]);
    expect(ec2.calls).toMatchObject({ CreateVolume: 2, AttachVolume: 2, DetachVolume: 2, DeleteVolume: 2 });
    expect(await volumeStatesLater(loop, ebs)).toEqual([]);
    // Per lifecycle: the client's put and its release, the worker's `attached` and the item's removal.
    expect(design.dynamodbWriteUnits()).toBe(8);
    // One worker invocation per stream record: insert, attached, dying, remove.
    expect(design.worker.invocations).toBe(8);
    expect(design.functions().map((fn) => fn.name)).toEqual(['naive-dispatcher', 'naive-worker']);
    expect(design.lambdaArchitecture).toBe('x86_64');
  });

  it('ends a lifecycle in error, naming the code, when its attach fails for good, and leaves the volume behind', async () => {
    const refused = new ProviderError('invalid-request', 'InvalidParameterValue', 'Invalid device name /dev/sdg.');
    const { loop, ebs, design, seen } = naive({ failing: { attachVolume: [refused] } });
    void design.request(volumeRequest('data-1', '/dev/sdg'));
    await loop.run();
    expect(seen).toEqual(['failed data-1: InvalidParameterValue: Invalid device name /dev/sdg.']);
    expect(await volumeStatesLater(loop, ebs)).toEqual(['available']);
    expect(design.operationsFailedByThrottling()).toBe(0);
  });

  it('counts a lifecycle given up after the SDK\'s three throttled attempts as failed by throttling', async () => {
    const throttled = () => new ProviderError('throttled', 'RequestLimitExceeded', 'Request limit exceeded.');
    const { loop, design, seen, attaches } = naive({ failing: { attachVolume: [throttled(), throttled(), throttled()] } });
    void design.request(volumeRequest('data-1', '/dev/sdg'));
    await loop.run();
    expect(attaches).toHaveLength(3);
    expect(seen).toEqual(['failed data-1: RequestLimitExceeded: Request limit exceeded.']);
    expect(design.operationsFailedByThrottling()).toBe(1);
    expect([design.sdkRetries, design.sdkThrottlingErrors]).toEqual([2, 3]);
    // As the run's report takes them.
    expect(design.sdkRetryCounts()).toEqual({ retries: 2, throttlingErrors: 3 });
  });

  it('ends a deletion in error when DeleteVolume fails for good, without trying again', async () => {
    const refused = new ProviderError('incorrect-state', 'VolumeInUse', 'vol is in use.');
    const { loop, ebs, ec2, design, seen } = naive({ failing: { deleteVolume: [refused] } });
    void design.request(volumeRequest('data-1', '/dev/sdg'));
    await loop.run();
    expect(seen).toEqual(['attached data-1', 'failed data-1: VolumeInUse: vol is in use.']);
    expect(ec2.calls.DetachVolume).toBe(1);
    expect(await volumeStatesLater(loop, ebs)).toEqual(['available']);
  });

  it('deletes the volume of a lifecycle in error without detaching it, and removes the item, when asked', async () => {
    const refused = new ProviderError('invalid-request', 'InvalidParameterValue', 'Invalid device name /dev/sdg.');
    const { loop, ebs, ec2, design, seen } = naive({ failing: { attachVolume: [refused] }, releaseFailed: true });
    void design.request(volumeRequest('data-1', '/dev/sdg'));
    await loop.run();
    expect(seen).toEqual(['failed data-1: InvalidParameterValue: Invalid device name /dev/sdg.', 'finished data-1']);
    expect(ec2.calls).toMatchObject({ CreateVolume: 1, DetachVolume: 0, DeleteVolume: 1 });
    expect(await volumeStatesLater(loop, ebs)).toEqual([]);
    // The put, the error, the release and the removal.
    expect(design.dynamodbWriteUnits()).toBe(4);
  });

  it('pays a DynamoDB round trip for each write and an Invoke call for each worker, and reports on the write', async () => {
    const fixed = (ms: number) => new Lognormal(ms, ms);
    const latencies = { ...DEFAULT_LATENCIES, dynamodbRequest: fixed(10), streamPropagation: fixed(100), sqsRequest: fixed(1000) };
    const { loop, design, seen, seenAt, creates, detachesAt, describes, deletesAnsweredAt } = naive({ latencies, holdMs: 10_000 });
    void design.request(volumeRequest('data-1', '/dev/sdg'));
    await loop.run();
    expect(seen).toEqual(['attached data-1', 'finished data-1']);
    // The client's put (10 ms), the stream (100 ms), the dispatcher's Invoke (1 s), then CreateVolume.
    expect(creates.map((request) => request.at)).toEqual([1110]);
    // `attached` is written (10 ms) once a DescribeVolumes lists the volume in use.
    const inUse = describes.find((answer) => answer.states.includes('in-use'))!;
    expect(seenAt[0]).toBe(inUse.at + 10);
    // Held 10 s, then the release's write, the stream and the Invoke come before the detach.
    expect(detachesAt).toEqual([seenAt[0]! + 10_000 + 1110]);
    expect(seenAt[1]).toBe(deletesAnsweredAt[0]! + 10);
  });

  it('runs with Lambda\'s defaults: 128 MB, a mapping of batches of 100 without a window retried until they expire, and 1000 workers at most', async () => {
    expect(NAIVE_STREAM_MAPPING).toEqual({ batchSize: 100, maxBatchingWindowSeconds: 0, retryAttempts: -1 });
    expect(NAIVE_SETTINGS).toEqual({ memoryMiB: 128, accountConcurrency: 1000, maxWaitTimeSeconds: 300 });
    // Every CreateVolume takes a minute to answer, so 1000 workers are still running when the 1001st is invoked.
    const { loop, design } = naive({ latencies: { ...DEFAULT_LATENCIES, ec2Request: new Lognormal(60_000, 60_000) } });
    for (const fn of design.functions()) expect([fn.memoryMiB, fn.timeoutMs]).toEqual([128, 900_000]);
    for (let i = 0; i < 1001; i++) void design.request(volumeRequest(`data-${i}`, `/dev/sd${i}`));
    await loop.run({ untilMs: T0 + 20_000 });
    expect(design.worker.peakConcurrency).toBe(1000);
    expect(design.worker.throttledEvents).toBe(1);
  });

  it('runs one dispatcher invocation per stream shard at a time, the shards side by side', async () => {
    const fixed = (ms: number) => new Lognormal(ms, ms);
    const latencies = { ...DEFAULT_LATENCIES, streamPropagation: fixed(100), sqsRequest: fixed(1000) };
    const { loop, design } = naive({ shards: 4, latencies });
    for (let i = 0; i < 400; i++) void design.request(volumeRequest(`data-${i}`, `/dev/sd${i}`));
    await loop.run({ untilMs: T0 + 5_000 });
    expect(design.dispatcher.peakConcurrency).toBe(4);
  });

  // A CreateVolume refused for good leaves no volume: asked for the deletion, the worker has nothing
  // to detach or delete and removes the item.
  it('removes the item of a lifecycle whose volume was never created, calling no DeleteVolume, when asked', async () => {
    const refused = new ProviderError('invalid-request', 'InvalidParameterValue', 'Invalid availability zone.');
    const { loop, ec2, design, seen, deletesAsked } = naive({ failing: { createVolume: [refused] }, releaseFailed: true });
    void design.request(volumeRequest('data-1', '/dev/sdg'));
    await loop.run();
    expect(seen).toEqual(['failed data-1: InvalidParameterValue: Invalid availability zone.', 'finished data-1']);
    expect(deletesAsked).toEqual([]);
    expect(ec2.calls).toMatchObject({ DetachVolume: 0, DeleteVolume: 0 });
    expect(design.table.size()).toBe(0);
  });

  // DynamoDB streams a PutItem that replaces an item as MODIFY.
  it('streams a put over an existing item as a MODIFY, which creates no second volume', async () => {
    const { loop, ec2, design } = naive();
    const publish = vi.spyOn(design.stream, 'publish');
    const item = { ...volumeRequest('data-1', '/dev/sdg'), life: 'alive' as const, state: 'requested' as const };
    design.table.put(item);
    design.table.put(item);
    loop.after(1_000_000, () => undefined);
    await loop.run({ untilMs: T0 + 1_000_000 });
    expect(publish.mock.calls.slice(0, 2).map(([, change]) => change.eventName)).toEqual(['INSERT', 'MODIFY']);
    expect(ec2.calls.CreateVolume).toBe(1);
  });

  // A waiter that gives up at its maxWaitTime (300 s) is named by the SDK's error, as an EC2 error is by its code.
  it('ends a lifecycle in error naming TimeoutError when the volume never reads in-use within the wait', async () => {
    const { loop, ebs, design, seen } = naive({ attachWithoutEffect: true });
    void design.request(volumeRequest('data-1', '/dev/sdg'));
    await loop.run();
    const [volumeId] = ebs.createdIds();
    expect(seen).toEqual([`failed data-1: TimeoutError: waiting for ${volumeId} to be in-use`]);
    expect(design.operationsFailedByThrottling()).toBe(0);
  });
});
