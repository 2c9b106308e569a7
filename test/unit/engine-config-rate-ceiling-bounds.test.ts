/**
 * A rate budget's `maxRatePerSecond` is the ceiling successes raise its rate to (additive
 * increase), `ratePerSecond` by default. The engine's config refuses a ceiling below the rate, or
 * one that is not a finite number (a rate raised without end), naming the setting, the rule and
 * the value; a ceiling at the rate itself is taken, and none keeps the rate as the ceiling.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_ENGINE_CONFIG, resolveEngineConfig } from '../../lib/engine/config.js';

const withCeiling = (maxRatePerSecond: number | undefined) =>
  resolveEngineConfig({
    accountRateBudgets: { ...DEFAULT_ENGINE_CONFIG.accountRateBudgets, CreateVolume: { burst: 95, ratePerSecond: 5, ...(maxRatePerSecond === undefined ? {} : { maxRatePerSecond }) } },
  });

describe("a rate budget's ceiling", () => {
  it('refuses an endless ceiling or one that is not a number', () => {
    expect(() => withCeiling(Number.POSITIVE_INFINITY)).toThrow(
      new RangeError('accountRateBudgets.CreateVolume.maxRatePerSecond must be a number of at least ratePerSecond (5), got Infinity'),
    );
    expect(() => withCeiling(Number.NaN)).toThrow(new RangeError('accountRateBudgets.CreateVolume.maxRatePerSecond must be a number of at least ratePerSecond (5), got NaN'));
    expect(() => withCeiling(4.99)).toThrow(new RangeError('accountRateBudgets.CreateVolume.maxRatePerSecond must be a number of at least ratePerSecond (5), got 4.99'));
  });

  it('takes a ceiling at the rate or above it, and none', () => {
    expect(withCeiling(5).accountRateBudgets.CreateVolume).toEqual({ burst: 95, ratePerSecond: 5, maxRatePerSecond: 5 });
    expect(withCeiling(50).accountRateBudgets.CreateVolume).toEqual({ burst: 95, ratePerSecond: 5, maxRatePerSecond: 50 });
    expect(withCeiling(undefined).accountRateBudgets.CreateVolume).toEqual({ burst: 95, ratePerSecond: 5 });
  });
});
