import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../lib/memory/clock.js';
import { TokenBucket } from '../../lib/engine/rate-limiter.js';

describe('token bucket', () => {
  it('lets a burst through, then one call per refill interval on the clock', async () => {
    const clock = new FakeClock(0);
    const bucket = new TokenBucket(clock, { burst: 3, ratePerSecond: 2 });
    const done: number[] = [];
    const takes = Array.from({ length: 6 }, (_, i) => bucket.take().then(() => done.push(i)));
    await clock.advance(0);
    expect(done).toEqual([0, 1, 2]);
    await clock.advance(500);
    expect(done).toEqual([0, 1, 2, 3]);
    await clock.advance(1000);
    await Promise.all(takes);
    expect(done).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('throttling halves the rate and drops the burst; successes bring it back', async () => {
    const clock = new FakeClock(0);
    const bucket = new TokenBucket(clock, { burst: 10, ratePerSecond: 4 });
    bucket.throttled();
    expect(bucket.ratePerSecond).toBe(2);
    let passed = false;
    const take = bucket.take().then(() => (passed = true));
    await clock.advance(0);
    expect(passed).toBe(false);
    await clock.advance(500);
    await take;
    expect(passed).toBe(true);
    for (let i = 0; i < 50; i++) bucket.succeeded();
    expect(bucket.ratePerSecond).toBeGreaterThan(3.9);
    for (let i = 0; i < 50; i++) bucket.succeeded();
    expect(bucket.ratePerSecond).toBe(4);
  });

  it('reserves tokens ahead: the burst at once, then one refill interval apart; refunds give them back', () => {
    const clock = new FakeClock(0);
    const bucket = new TokenBucket(clock, { burst: 2, ratePerSecond: 4 });
    expect([bucket.reserve(), bucket.reserve(), bucket.reserve(), bucket.reserve()]).toEqual([0, 0, 250, 500]);
    bucket.refund();
    expect(bucket.reserve()).toBe(500);
    expect(bucket.throttleCount).toBe(0);
    bucket.throttled();
    expect(bucket.throttleCount).toBe(1);
    expect(bucket.reserve()).toBe(1500); // two tokens of debt at the halved rate
  });
});
