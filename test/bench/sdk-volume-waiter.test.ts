import { describe, expect, it } from 'vitest';
import { StandardRetry, VOLUME_WAITER, WaiterFailureError, WaiterTimeoutError, waitUntilVolumeState, waiterDelayMs } from '../../bench/naive/sdk.js';
import { EventLoop } from '../../bench/sim/event-loop.js';
import { FixedRandom } from './fixed-random.js';
import { ProviderError, type ProviderVolume, type ProviderVolumeState, type VolumeProvider } from '../../lib/engine/ports.js';

// The EC2 volume waiters (waitUntilVolumeAvailable / waitUntilVolumeInUse: minDelay 15 s, maxDelay
// 120 s) as @smithy's runPolling runs them: the first DescribeVolumes at once, then a wait uniform
// between minDelay and min(minDelay × 2^(n−1), maxDelay), maxDelay once past the ceiling, shortened
// to 500 ms before maxWaitTime when it would pass it; a timeout when the next poll would come after
// maxWaitTime. Every volume in the wanted state is success, a deleted one failure, anything else
// (an error included) polls again.

const T0 = Date.UTC(2026, 0, 1);

function volumeIn(state: ProviderVolumeState): ProviderVolume {
  return {
    ebsVolumeId: 'vol-1',
    state,
    availabilityZone: 'us-east-1a',
    sizeGiB: 10,
    volumeType: 'gp3',
    multiAttach: false,
    encrypted: false,
    attachments: [],
    tags: {},
  };
}

/** An EC2 whose DescribeVolumes answers each poll in turn (the last answer repeats), at once; it records when it was asked. */
function scriptedEc2(loop: EventLoop, answers: (ProviderVolume[] | Error)[]): { ec2: VolumeProvider; polls: number[] } {
  const polls: number[] = [];
  const describeVolumes = async (ids: string[]): Promise<ProviderVolume[]> => {
    expect(ids).toEqual(['vol-1']);
    const answer = answers[polls.length] ?? answers[answers.length - 1]!;
    polls.push(loop.now() - T0);
    if (answer instanceof Error) throw answer;
    return answer;
  };
  return { ec2: { describeVolumes } as Partial<VolumeProvider> as VolumeProvider, polls };
}

async function wait(loop: EventLoop, ec2: VolumeProvider, maxWaitTimeSeconds = 300, random = new FixedRandom(0.5)) {
  const retry = new StandardRetry(loop.clock, random);
  const pending = waitUntilVolumeState(ec2, retry, loop.clock, random, 'vol-1', 'available', maxWaitTimeSeconds).catch((error: unknown) => error);
  await loop.run();
  return { result: await pending, retry };
}

describe('the SDK volume waiters the naive design reproduces', () => {
  it('waits 15 s, then uniformly up to 30, 60 and 120 s, then 120 s', () => {
    expect(VOLUME_WAITER).toEqual({ minDelaySeconds: 15, maxDelaySeconds: 120 });
    const far = Number.MAX_SAFE_INTEGER;
    const half = new FixedRandom(0.5);
    expect(waiterDelayMs(1, 0, far, half)).toBe(15_000);
    expect(waiterDelayMs(2, 0, far, half)).toBe(22_500);
    expect(waiterDelayMs(3, 0, far, half)).toBe(37_500);
    // Attempt 4 is the ceiling (log2(120 / 15) + 1): still drawn, between 15 and 120 s.
    expect(waiterDelayMs(4, 0, far, half)).toBe(67_500);
    expect(waiterDelayMs(5, 0, far, half)).toBe(120_000);
    expect(waiterDelayMs(9, 0, far, half)).toBe(120_000);
  });

  it('shortens a wait that would pass maxWaitTime to 500 ms before it, never below zero, and keeps one that ends on it', () => {
    const half = new FixedRandom(0.5);
    expect(waiterDelayMs(2, 1_000, 21_000, half)).toBe(19_500);
    expect(waiterDelayMs(2, 10_000, 30_000, half)).toBe(19_500);
    expect(waiterDelayMs(2, 1_000, 1_300, half)).toBe(0);
    expect(waiterDelayMs(1, 1_000, 16_000, half)).toBe(15_000);
  });

  it('polls at once, then on the backoff schedule, until the volume reads the wanted state', async () => {
    const loop = new EventLoop(T0);
    const available = volumeIn('available');
    const { ec2, polls } = scriptedEc2(loop, [[volumeIn('creating')], [volumeIn('creating')], [available]]);
    const { result } = await wait(loop, ec2);
    expect(result).toBe(available);
    expect(polls).toEqual([0, 15_000, 37_500]);
  });

  it('fails on a deleted volume', async () => {
    const loop = new EventLoop(T0);
    const { ec2, polls } = scriptedEc2(loop, [[volumeIn('creating')], [volumeIn('deleted')], [volumeIn('available')]]);
    const { result } = await wait(loop, ec2);
    expect(result).toBeInstanceOf(WaiterFailureError);
    expect(polls).toEqual([0, 15_000]);
  });

  it('polls again after a DescribeVolumes that fails or lists no volume', async () => {
    const loop = new EventLoop(T0);
    const available = volumeIn('available');
    const notFound = new ProviderError('not-found', 'InvalidVolume.NotFound', "The volume 'vol-1' does not exist.");
    const { ec2, polls } = scriptedEc2(loop, [notFound, [], [available]]);
    const { result } = await wait(loop, ec2);
    expect(result).toBe(available);
    expect(polls).toEqual([0, 15_000, 37_500]);
  });

  it('sends each poll through the SDK retry strategy', async () => {
    const loop = new EventLoop(T0);
    const available = volumeIn('available');
    const slowedDown = new ProviderError('throttled', 'RequestLimitExceeded', 'Request limit exceeded.');
    const { ec2, polls } = scriptedEc2(loop, [slowedDown, [available]]);
    const { result, retry } = await wait(loop, ec2);
    expect(result).toBe(available);
    // Retried after floor(0.5 × 1 s), within the first poll.
    expect(polls).toEqual([0, 500]);
    expect(retry.retries).toBe(1);
  });

  it('times out when the next poll would come after maxWaitTime, and polls once more when it comes exactly then', async () => {
    const loop = new EventLoop(T0);
    const { ec2, polls } = scriptedEc2(loop, [[volumeIn('creating')]]);
    const { result } = await wait(loop, ec2, 300);
    expect(result).toBeInstanceOf(WaiterTimeoutError);
    // 0, 15, 37.5, 75, 142.5, 262.5 s; the next (120 s later) would pass 300 s.
    expect(polls).toEqual([0, 15_000, 37_500, 75_000, 142_500, 262_500]);
    expect(loop.now() - T0).toBe(262_500);

    const exact = new EventLoop(T0);
    const again = scriptedEc2(exact, [[volumeIn('creating')]]);
    expect((await wait(exact, again.ec2, 382.5)).result).toBeInstanceOf(WaiterTimeoutError);
    expect(again.polls).toEqual([0, 15_000, 37_500, 75_000, 142_500, 262_500, 382_500]);
  });
});
