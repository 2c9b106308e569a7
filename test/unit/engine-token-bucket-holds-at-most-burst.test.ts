import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../lib/memory/clock.js';
import { TokenBucket } from '../../lib/engine/rate-limiter.js';

/** Takes tokens without waiting until the bucket refuses one; returns how many it gave. */
function drainNow(bucket: TokenBucket): number {
  let taken = 0;
  while (bucket.tryTake()) taken++;
  return taken;
}

describe('a token bucket never holds more than its burst', () => {
  it('a long idle time refills it to the burst, not beyond', async () => {
    const clock = new FakeClock(0);
    const bucket = new TokenBucket(clock, { burst: 3, ratePerSecond: 2 });
    expect(drainNow(bucket)).toBe(3);
    await clock.advance(60_000);
    expect(drainNow(bucket)).toBe(3);
  });

});
