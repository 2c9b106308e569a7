/**
 * A token granted from a shared bucket ahead of its refill is usable no sooner than the refill has
 * made it: its time is rounded up to the millisecond, never down.
 */
import { describe, expect, it } from 'vitest';
import { grantTokens, tokenWaitMs } from '../../lib/engine/rate-limiter.js';

describe('shared bucket grants: when a token waiting for the refill is usable', () => {
  const budget = { burst: 1, ratePerSecond: 3 };
  const T = 1_000_000;

  it('at the millisecond the refill has made it, rounded up', () => {
    // One at once (the burst), then one every 333.3… ms.
    expect(grantTokens(undefined, budget, 3, T, 1000).usableAt).toEqual([T, T + 334, T + 667]);
  });

  it('tells the same wait for a token taken next', () => {
    const level = grantTokens(undefined, budget, 2, T, 1000).level;
    expect(tokenWaitMs(level, budget, T)).toBe(667);
    expect(tokenWaitMs(level, budget, T + 100)).toBe(567);
  });
});
