import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../lib/memory/clock.js';
import { grantTokens, tokenWaitMs, TokenBucket } from '../../lib/engine/rate-limiter.js';
import { MemoryRateBudget } from '../../lib/memory/rate-budget.js';
import { DEFAULT_ENGINE_CONFIG, EC2_REQUEST_BUCKETS, RATE_BUCKETS, environmentRateBudgets } from '../../lib/engine/config.js';
import { EXECUTOR } from '../../lib/settings.js';

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

  it('throttling halves the rate, down to a sixteenth, and drops the burst; successes bring it back, a twentieth at a time, up to its maximum', async () => {
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

    // Throttled again and again, it keeps a sixteenth of its rate; each success adds a twentieth.
    for (let i = 0; i < 10; i++) bucket.throttled();
    expect(bucket.ratePerSecond).toBe(0.25);
    bucket.succeeded();
    expect(bucket.ratePerSecond).toBeCloseTo(0.45);
    // With a maximum above the rate, successes probe past it up to that maximum, and no further.
    const probing = new TokenBucket(clock, { burst: 10, ratePerSecond: 4, maxRatePerSecond: 6 });
    for (let i = 0; i < 5; i++) probing.succeeded();
    expect(probing.ratePerSecond).toBeCloseTo(5);
    for (let i = 0; i < 50; i++) probing.succeeded();
    expect(probing.ratePerSecond).toBe(6);
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

  it('a clock set back takes no tokens away: the bucket refills nothing until the clock moves on from there', () => {
    let nowMs = 3_600_000;
    const clock = { now: () => nowMs, sleep: async () => {} };
    const bucket = new TokenBucket(clock, { burst: 2, ratePerSecond: 4 });
    nowMs = 0; // the system clock stepped back an hour
    expect([bucket.reserve(), bucket.reserve(), bucket.reserve()]).toEqual([0, 0, 250]);
    nowMs = 250;
    expect(bucket.reserve()).toBe(250);
  });
});

describe('shared bucket grants', () => {
  const budget = { burst: 50, ratePerSecond: 5 };
  const T = 1_000_000;

  it('a bucket never taken from is full: a burst is usable at once', () => {
    const grant = grantTokens(undefined, budget, 20, T, 0);
    expect(grant.usableAt).toEqual(Array.from({ length: 20 }, () => T));
    expect(grant.level).toEqual({ tokens: 30, updatedAt: T });
    expect(grant.nextAt).toBe(T);
  });

  it('past the burst, tokens come one refill interval apart, as far as the wait allows; nextAt is the first not granted', () => {
    const grant = grantTokens(undefined, budget, 60, T, 1000);
    expect(grant.usableAt).toHaveLength(55);
    expect(grant.usableAt.slice(49)).toEqual([T, T + 200, T + 400, T + 600, T + 800, T + 1000]);
    expect(grant.nextAt).toBe(T + 1200);
    expect(grant.level.tokens).toBe(-5);
  });

  it('the line: how long a token taken now would wait, taking none', () => {
    expect(tokenWaitMs(undefined, budget, T)).toBe(0);
    const first = grantTokens(undefined, budget, 70, T, 60_000);
    // 20 past the burst, one every 200 ms: the next token is 4.2 s off, and the refill shortens the line.
    expect(tokenWaitMs(first.level, budget, T)).toBe(4200);
    expect(tokenWaitMs(first.level, budget, T + 4000)).toBe(200);
    expect(tokenWaitMs(first.level, budget, T + 10_000)).toBe(0);
  });

  it('tokens reserved ahead are owed by the next take; the refill since the stored level pays them back', () => {
    const first = grantTokens(undefined, budget, 55, T, 1000);
    const soon = grantTokens(first.level, budget, 1, T + 500, 0);
    expect(soon.usableAt).toEqual([]);
    expect(soon.nextAt).toBe(T + 1200);
    const later = grantTokens(first.level, budget, 3, T + 2000, 0);
    expect(later.usableAt).toEqual([T + 2000, T + 2000, T + 2000]);
    expect(later.level).toEqual({ tokens: 2, updatedAt: T + 2000 });
  });

  it('refills no further than the burst, and not backwards from a level stored by a clock running ahead', () => {
    expect(grantTokens({ tokens: 0, updatedAt: T }, budget, 0, T + 3_600_000, 0).level.tokens).toBe(50);
    const ahead = grantTokens({ tokens: 2, updatedAt: T + 5000 }, budget, 3, T, 0);
    expect(ahead.usableAt).toEqual([T, T]);
    expect(ahead.level).toEqual({ tokens: 0, updatedAt: T + 5000 });
  });

  it('the in-memory budget keeps one level per bucket for every taker', async () => {
    const shared = new MemoryRateBudget();
    expect((await shared.take('AttachVolume', 40, budget, T, 0)).usableAt).toHaveLength(40);
    expect((await shared.take('AttachVolume', 40, budget, T, 0)).usableAt).toHaveLength(10);
    expect((await shared.take('CreateVolume', 40, budget, T, 0)).usableAt).toHaveLength(40);
    expect(shared.level('AttachVolume')).toEqual({ tokens: 0, updatedAt: T });
  });

  it('the in-memory budget refuses, as the DynamoDB budget\'s write does, a level that is no number DynamoDB\'s client writes, and keeps the one it had', async () => {
    const shared = new MemoryRateBudget();
    await shared.take('AttachVolume', 40, budget, T, 0);
    await expect(shared.take('AttachVolume', 1, budget, Number.NaN, 0)).rejects.toThrow(
      new RangeError('rate budget AttachVolume: tokens would be NaN, a number the DynamoDB client does not write'),
    );
    await expect(shared.take('AttachVolume', 1, budget, Number.POSITIVE_INFINITY, 0)).rejects.toThrow(/^rate budget AttachVolume: updatedAt would be Infinity, /);
    expect(shared.level('AttachVolume')).toEqual({ tokens: 10, updatedAt: T });
    expect((await shared.take('AttachVolume', 40, budget, T + 1000, 0)).usableAt).toHaveLength(15);
  });
});

describe('each executor environment\'s share of EC2\'s buckets', () => {
  it('for EXECUTOR.maxConcurrency environments at EC2\'s standard limits: the engine\'s default budgets', () => {
    expect(DEFAULT_ENGINE_CONFIG.concurrentEnvironments).toBe(EXECUTOR.maxConcurrency);
    expect(environmentRateBudgets(EXECUTOR.maxConcurrency)).toEqual(DEFAULT_ENGINE_CONFIG.rateBudgets);
  });

  it('scales with the number of environments, all of them together within EC2\'s buckets', () => {
    for (const environments of [2, 3, 10, 50]) {
      const budgets = environmentRateBudgets(environments);
      expect(Object.keys(budgets).sort()).toEqual([...RATE_BUCKETS].sort());
      for (const name of RATE_BUCKETS) {
        const bucket = EC2_REQUEST_BUCKETS[name];
        expect(budgets[name].ratePerSecond * environments).toBeCloseTo(bucket.ratePerSecond, 10);
        expect(budgets[name].burst * environments).toBeLessThanOrEqual(bucket.burst);
        expect(budgets[name].burst).toBeGreaterThanOrEqual(1);
      }
    }
    expect(environmentRateBudgets(10).CreateTags).toEqual({ burst: 10, ratePerSecond: 1 });
    expect(environmentRateBudgets(10).AttachVolume).toEqual({ burst: 5, ratePerSecond: 0.5 });
    expect(() => environmentRateBudgets(0)).toThrow(RangeError);
    expect(() => environmentRateBudgets(2.5)).toThrow('environments must be a positive integer, got 2.5');
    expect(() => environmentRateBudgets(Number.NaN)).toThrow(RangeError);
  });

  it('gives each environment one token of burst at least, beyond a bucket\'s size in environments', () => {
    // The mutating actions' bucket holds 50: 60 environments would get none of it each.
    expect(environmentRateBudgets(60).AttachVolume).toEqual({ burst: 1, ratePerSecond: 5 / 60 });
    expect(environmentRateBudgets(200).CreateVolume).toEqual({ burst: 1, ratePerSecond: 5 / 200 });
  });
});
