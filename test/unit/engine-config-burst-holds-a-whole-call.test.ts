/**
 * A rate budget is a token bucket of `burst` calls at once; every call takes a whole token. A
 * bucket smaller than one token never holds one: a call waiting for it would wait forever (the
 * refill stops at the bucket's size). The engine's config refuses such a budget, for an
 * environment's own share and the account's alike, naming the setting, the rule and the value;
 * a bucket of exactly one call is taken, as `environmentRateBudgets` gives each environment one
 * token at least.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_ENGINE_CONFIG, environmentRateBudgets, resolveEngineConfig, type EngineConfig } from '../../lib/engine/config.js';
import { Executor } from '../../lib/engine/executor.js';
import { TokenBucket } from '../../lib/engine/rate-limiter.js';
import { FakeClock } from '../../lib/memory/clock.js';
import { silentLog } from '../../lib/memory/log.js';
import { harness } from './engine-fixtures.js';

const budgets = (bucket: 'AttachVolume' | 'CreateTags', burst: number, ratePerSecond: number): EngineConfig['rateBudgets'] => ({
  ...DEFAULT_ENGINE_CONFIG.rateBudgets,
  [bucket]: { burst, ratePerSecond },
});

describe('a rate budget smaller than one call', () => {
  it('never holds a token, however long it refills', async () => {
    const clock = new FakeClock(0);
    const bucket = new TokenBucket(clock, { burst: 0.5, ratePerSecond: 1 });
    await clock.advance(3_600_000);
    expect(bucket.tryTake()).toBe(false);
    expect(bucket.msUntilToken()).toBeGreaterThan(0);
  });

  it("is refused for an environment's own share and for the account, and no executor is built on it", () => {
    expect(() => resolveEngineConfig({ rateBudgets: budgets('AttachVolume', 0.5, 1) })).toThrow(
      new RangeError('rateBudgets.AttachVolume.burst must be a number of at least 1 (a call takes a whole token), got 0.5'),
    );
    expect(() => resolveEngineConfig({ accountRateBudgets: { ...DEFAULT_ENGINE_CONFIG.accountRateBudgets, CreateTags: { burst: 0.99, ratePerSecond: 10 } } })).toThrow(
      new RangeError('accountRateBudgets.CreateTags.burst must be a number of at least 1 (a call takes a whole token), got 0.99'),
    );
    expect(() => resolveEngineConfig({ rateBudgets: budgets('CreateTags', Number.POSITIVE_INFINITY, 1) })).toThrow(
      new RangeError('rateBudgets.CreateTags.burst must be a number of at least 1 (a call takes a whole token), got Infinity'),
    );
    const h = harness();
    expect(() => new Executor({ store: h.store, queue: h.queue, provider: h.ebs, clock: h.clock, metrics: h.metrics, log: silentLog, config: { rateBudgets: budgets('AttachVolume', 0.5, 1) } })).toThrow(RangeError);
  });

  it('is not what an environment is given: one call at least, taken', () => {
    const shares = environmentRateBudgets(1000);
    expect(shares.AttachVolume.burst).toBe(1);
    expect(resolveEngineConfig({ rateBudgets: shares }).rateBudgets).toEqual(shares);
    expect(resolveEngineConfig({ rateBudgets: budgets('AttachVolume', 1, 0.1) }).rateBudgets.AttachVolume).toEqual({ burst: 1, ratePerSecond: 0.1 });
  });
});
