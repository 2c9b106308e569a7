/**
 * The token bucket hands its tokens out in call order: a caller already waiting is served before
 * one that came later, even when the rate drops (EC2 throttled) while both wait. `tryTake` takes
 * the token it finds, so the next one finds none.
 */
import { describe, expect, it } from 'vitest';
import { TokenBucket } from '../../lib/engine/rate-limiter.js';
import { FakeClock } from '../../lib/memory/clock.js';

describe('token bucket: call order', () => {
  it('serves a waiter in line before a later one, when a throttle halves the rate while both wait', async () => {
    const clock = new FakeClock(0);
    const bucket = new TokenBucket(clock, { burst: 1, ratePerSecond: 1 });
    await bucket.take();
    const served: string[] = [];
    const first = bucket.take().then(() => served.push(`first at ${clock.now()}`));
    await clock.advance(100);
    bucket.throttled(); // 0.5 tokens a second from here, nothing left in the bucket
    const second = bucket.take().then(() => served.push(`second at ${clock.now()}`));
    await clock.advance(10_000);
    await Promise.all([first, second]);
    // At 0.5 a second, a token every 2 s from the throttle: the first at 2.1 s, the second 2 s later.
    expect(served).toEqual(['first at 2100', 'second at 4100']);
  });

  it('tryTake takes the token it finds: a burst of two gives two, then none until the refill', async () => {
    const clock = new FakeClock(0);
    const bucket = new TokenBucket(clock, { burst: 2, ratePerSecond: 1 });
    expect([bucket.tryTake(), bucket.tryTake(), bucket.tryTake()]).toEqual([true, true, false]);
    expect(bucket.msUntilToken()).toBe(1000);
    await clock.advance(1000);
    expect([bucket.tryTake(), bucket.tryTake()]).toEqual([true, false]);
  });
});
