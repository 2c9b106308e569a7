/**
 * The wait after RequestLimitExceeded is uniform between `throttleBackoff.minSeconds` and
 * `maxSeconds`. The engine's config refuses a range it could not draw from, naming the setting,
 * the rule and the value: a minimum below 0 (a wait cannot be negative) and a maximum that is not
 * a number (a wait that never ends), as it does every duration.
 */
import { describe, expect, it } from 'vitest';
import { resolveEngineConfig } from '../../lib/engine/config.js';
import { throttleDelaySeconds } from '../../lib/engine/schedule.js';

describe('the throttling backoff range', () => {
  it('refuses a minimum below 0, even under a maximum above it', () => {
    expect(() => resolveEngineConfig({ throttleBackoff: { minSeconds: -1, maxSeconds: 20 } })).toThrow(
      new RangeError('throttleBackoff.minSeconds must be a number of at least 0, got -1'),
    );
    expect(() => resolveEngineConfig({ throttleBackoff: { minSeconds: Number.NaN, maxSeconds: 20 } })).toThrow(
      new RangeError('throttleBackoff.minSeconds must be a number of at least 0, got NaN'),
    );
  });

  it('refuses an endless maximum', () => {
    expect(() => resolveEngineConfig({ throttleBackoff: { minSeconds: 2, maxSeconds: Number.POSITIVE_INFINITY } })).toThrow(
      new RangeError('throttleBackoff.maxSeconds must be a number of at least minSeconds (2), got Infinity'),
    );
  });

  it('takes a range from 0, whose shortest wait is none', () => {
    const config = resolveEngineConfig({ throttleBackoff: { minSeconds: 0, maxSeconds: 0 } });
    expect(config.throttleBackoff).toEqual({ minSeconds: 0, maxSeconds: 0 });
    expect(throttleDelaySeconds(config, () => 0.999999)).toBe(0);
  });
});
