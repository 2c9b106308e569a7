/**
 * The waits the token bucket tells are never short: `msUntilToken` and `reserve` round up to the
 * millisecond, so a caller that waits what it was told finds its token there, and both count the
 * refill up to the moment they are asked.
 */
import { describe, expect, it } from 'vitest';
import { TokenBucket } from '../../lib/engine/rate-limiter.js';
import { FakeClock } from '../../lib/memory/clock.js';

describe('token bucket: the waits it tells', () => {
  it('msUntilToken counts the refill since the last take, and rounds a fraction of a millisecond up', async () => {
    const clock = new FakeClock(0);
    const bucket = new TokenBucket(clock, { burst: 1, ratePerSecond: 3 });
    expect(bucket.msUntilToken()).toBe(0);
    expect(bucket.tryTake()).toBe(true);
    // One token every 333.3… ms.
    expect(bucket.msUntilToken()).toBe(334);
    await clock.advance(100);
    expect(bucket.msUntilToken()).toBe(234);
    await clock.advance(233);
    expect(bucket.tryTake()).toBe(false);
    expect(bucket.msUntilToken()).toBe(1);
    await clock.advance(1);
    expect(bucket.msUntilToken()).toBe(0);
    expect(bucket.tryTake()).toBe(true);
  });

  it('reserve rounds a token\'s wait up to the millisecond it is refilled by', () => {
    const clock = new FakeClock(0);
    const bucket = new TokenBucket(clock, { burst: 1, ratePerSecond: 3 });
    // The burst at once, then one token every 333.3… ms.
    expect([bucket.reserve(), bucket.reserve(), bucket.reserve()]).toEqual([0, 334, 667]);
  });
});

describe('token bucket: a take that waits', () => {
  it('sleeps once, until the refill has made its token, rounded up to the millisecond', async () => {
    let nowMs = 0;
    const sleeps: number[] = [];
    const clock = {
      now: () => nowMs,
      sleep: (ms: number) => {
        sleeps.push(ms);
        if (sleeps.length > 3) return Promise.reject(new Error(`slept ${sleeps.join(', ')} ms`));
        nowMs += ms;
        return Promise.resolve();
      },
    };
    const bucket = new TokenBucket(clock, { burst: 1, ratePerSecond: 3 });
    await bucket.take();
    await bucket.take();
    expect({ sleeps, nowMs }).toEqual({ sleeps: [334], nowMs: 334 });
  });
});
