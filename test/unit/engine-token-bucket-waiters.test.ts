/**
 * The token bucket's waiters go out in call order, one after another: a wait that fails (the
 * clock's sleep rejected) fails that caller's take alone, and the callers behind it still get
 * their tokens, rather than waiting behind it for ever.
 */
import { describe, expect, it } from 'vitest';
import { TokenBucket } from '../../lib/engine/rate-limiter.js';
import { FakeClock } from '../../lib/memory/clock.js';

describe('token bucket: a failed wait for a token', () => {
  it('fails that take alone; the takes queued behind it get their tokens', async () => {
    const clock = new FakeClock(0);
    let failNextSleep = true;
    const sleep = clock.sleep.bind(clock);
    clock.sleep = (ms: number) => {
      if (failNextSleep) {
        failNextSleep = false;
        return Promise.reject(new Error('timer unavailable'));
      }
      return sleep(ms);
    };
    const bucket = new TokenBucket(clock, { burst: 1, ratePerSecond: 1 });
    await bucket.take();
    const outcomes: string[] = [];
    const failed = bucket.take().then(
      () => outcomes.push('first taken'),
      (error: Error) => outcomes.push(`first failed: ${error.message}`),
    );
    const second = bucket.take().then(() => outcomes.push(`second taken at ${clock.now()}`));
    await clock.advance(0);
    await failed;
    expect(outcomes).toEqual(['first failed: timer unavailable']);
    await clock.advance(1000);
    await second;
    expect(outcomes).toEqual(['first failed: timer unavailable', 'second taken at 1000']);
  });
});
