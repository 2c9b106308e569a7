import { describe, expect, it } from 'vitest';
import { resolveEngineConfig } from '../../lib/engine/config.js';
import { backoffDelaySeconds } from '../../lib/engine/schedule.js';

describe('failure backoff under a cap that is not a whole number of seconds', () => {
  // The config documents the backoff as capped and in whole seconds; a cap of 10.7 s is accepted (at least 1 s).
  const config = resolveEngineConfig({ backoff: { baseSeconds: 2, capSeconds: 10.7 } });

  it('waits whole seconds, never past the cap, whatever the jitter', () => {
    for (const attempt of [1, 2, 3, 4, 5, 10]) {
      for (const r of [0, 0.25, 0.5, 0.9, 0.999999]) {
        const seconds = backoffDelaySeconds(attempt, config, () => r);
        expect(Number.isInteger(seconds)).toBe(true);
        expect(seconds).toBeGreaterThanOrEqual(1);
        expect(seconds).toBeLessThanOrEqual(10.7);
      }
    }
  });

  it('reaches the last whole second under the cap once the doubling passes it', () => {
    expect(backoffDelaySeconds(10, config, () => 0.999999)).toBe(10);
    // Equal jitter: half the ceiling fixed, so the shortest wait is half of it, rounded.
    expect(backoffDelaySeconds(10, config, () => 0)).toBe(5);
  });

  it('keeps the documented least wait of a second under the smallest cap', () => {
    const smallest = resolveEngineConfig({ backoff: { baseSeconds: 2, capSeconds: 1.9 } });
    expect(backoffDelaySeconds(3, smallest, () => 0.999999)).toBe(1);
    expect(backoffDelaySeconds(3, smallest, () => 0)).toBe(1);
  });
});
