import { describe, expect, it } from 'vitest';
import { DEFAULT_ENGINE_CONFIG, EC2_REQUEST_BUCKETS, resolveEngineConfig, type EngineConfig } from '../../lib/engine/config.js';
import {
  alignedCheckAtMs,
  backoffDelaySeconds,
  budgetSpent,
  checkQueueDelay,
  progressDelaySeconds,
  queueDelay,
  snapshotWaitSeconds,
  throttleDelaySeconds,
} from '../../lib/engine/schedule.js';

const config = DEFAULT_ENGINE_CONFIG;

describe('progress checks', () => {
  it('checks first near the expected transition time, then waits longer the longer it runs', () => {
    expect(progressDelaySeconds('attach', 0, config)).toBe(2);
    expect(progressDelaySeconds('create-volume', 0, config)).toBe(2);
    expect(progressDelaySeconds('delete-volume', 0, config)).toBe(1);
    expect(progressDelaySeconds('create-volume', 60_000, config)).toBe(30);
    expect(progressDelaySeconds('create-volume', 10 * 60_000, config)).toBe(120);
    const delays = [0, 10, 30, 90, 300].map((s) => progressDelaySeconds('modify-volume', s * 1000, config));
    expect(delays).toEqual([...delays].sort((a, b) => a - b));
    expect(Math.max(...delays)).toBeLessThanOrEqual(config.progressChecks['modify-volume'].maxSeconds);
  });

  it('rounds a later check up to a whole second, never sooner than its fraction of the time spent', () => {
    // Growth 0.5: 60.2 s spent is 30.1 s, 61.8 s is 30.9 s, both 31 s; exactly 30 s stays 30.
    expect(progressDelaySeconds('create-volume', 60_200, config)).toBe(31);
    expect(progressDelaySeconds('create-volume', 61_800, config)).toBe(31);
    expect(progressDelaySeconds('create-volume', 60_000, config)).toBe(30);
    expect(progressDelaySeconds('attach', 4_002, config)).toBe(3);
  });
});

describe('progress check grid', () => {
  it('moves a check to the next point of its grid, so checks started close together fall due together', () => {
    expect(alignedCheckAtMs('create-volume', 10_001, config)).toBe(12_000);
    expect(alignedCheckAtMs('create-volume', 11_999, config)).toBe(12_000);
    expect(alignedCheckAtMs('create-volume', 12_000, config)).toBe(12_000);
    expect(alignedCheckAtMs('detach', 12_500, config)).toBe(16_000);
    // Without a grid, only the due time itself.
    expect(alignedCheckAtMs('modify-volume', 12_345, config)).toBe(12_345);
  });
});

describe('failure backoff', () => {
  it('grows exponentially in whole seconds, capped, with jitter inside [half, full]', () => {
    const low = [1, 2, 3, 4, 5].map((attempt) => backoffDelaySeconds(attempt, config, () => 0));
    const high = [1, 2, 3, 4, 5].map((attempt) => backoffDelaySeconds(attempt, config, () => 0.999999));
    expect(low).toEqual([1, 2, 4, 8, 16]);
    expect(high).toEqual([2, 4, 8, 16, 32]);
    for (const value of [...low, ...high]) expect(Number.isInteger(value)).toBe(true);
    expect(backoffDelaySeconds(40, config, () => 0.999999)).toBe(900);
    expect(backoffDelaySeconds(40, config, () => 0)).toBe(450);
  });

  it('never collapses to zero, and waits from the base at attempt numbers below the first', () => {
    // A base below a second would round the equal jitter down to 0 s: one second at least (a cap
    // below a second is refused by the config).
    expect(backoffDelaySeconds(1, resolveEngineConfig({ backoff: { baseSeconds: 0.4, capSeconds: 900 } }), () => 0)).toBe(1);
    expect(backoffDelaySeconds(3, resolveEngineConfig({ backoff: { baseSeconds: 2, capSeconds: 1 } }), () => 0.999999)).toBe(1);
    expect(backoffDelaySeconds(3, resolveEngineConfig({ backoff: { baseSeconds: 2, capSeconds: 1 } }), () => 0)).toBe(1);
    // Attempts are counted from 1: none counted yet waits as the first does, not half of it.
    expect(backoffDelaySeconds(0, config, () => 0.999999)).toBe(backoffDelaySeconds(1, config, () => 0.999999));
    expect(backoffDelaySeconds(0, config, () => 0.999999)).toBe(config.backoff.baseSeconds);
  });

  it('never exceeds the configured cap, even past SQS maximum', () => {
    const custom = resolveEngineConfig({ backoff: { baseSeconds: 60, capSeconds: 3600 } });
    expect(backoffDelaySeconds(10, custom, () => 0.999999)).toBe(3600);
  });

  it('throttling waits within its own range', () => {
    expect(throttleDelaySeconds(config, () => 0)).toBe(config.throttleBackoff.minSeconds);
    expect(throttleDelaySeconds(config, () => 0.999999)).toBe(config.throttleBackoff.maxSeconds);
  });

  it('a CreateVolume waiting for its snapshot is sent again after half the time waited, from 2 s to 15 minutes', () => {
    expect(snapshotWaitSeconds(0, config)).toBe(2);
    expect(snapshotWaitSeconds(10 * 60_000, config)).toBe(300);
    expect(snapshotWaitSeconds(5 * 60 * 60_000, config)).toBe(900);
    // Rounded up to a whole second, as a progress check is: 300.1 s is 301.
    expect(snapshotWaitSeconds(10 * 60_000 + 200, config)).toBe(301);
  });
});

describe('budget', () => {
  it('gives up after the attempt budget', () => {
    expect(budgetSpent(config.maxAttempts - 1, 0, 1000, config)).toBeUndefined();
    expect(budgetSpent(config.maxAttempts, 0, 1000, config)).toEqual({ reason: 'attempts', message: `gave up after ${config.maxAttempts} failed attempts` });
  });

  it("says how far a dying record's step got rather than that it gave up", () => {
    expect(budgetSpent(config.maxAttempts, 0, 1000, config, true)).toEqual({ reason: 'attempts', message: `failed ${config.maxAttempts} times so far` });
    expect(budgetSpent(1, 0, config.maxOperationAgeMs, config, true)).toEqual({ reason: 'age', message: 'not done after 360 minutes' });
  });

  it('gives up after the maximum age', () => {
    expect(budgetSpent(1, 0, config.maxOperationAgeMs - 1, config)).toBeUndefined();
    expect(budgetSpent(1, 0, config.maxOperationAgeMs, config)).toMatchObject({
      reason: 'age',
      message: 'gave up after 360 minutes',
    });
    expect(budgetSpent(1, undefined, Number.MAX_SAFE_INTEGER, config)).toBeUndefined();
  });

  it('gives the age in whole minutes, rounded to the nearest', () => {
    const age = config.maxOperationAgeMs;
    expect(budgetSpent(1, 0, age + 29_999, config)?.message).toBe('gave up after 360 minutes');
    expect(budgetSpent(1, 0, age + 30_000, config)?.message).toBe('gave up after 361 minutes');
    expect(budgetSpent(1, 0, age + 89_999, config, true)?.message).toBe('not done after 361 minutes');
    expect(budgetSpent(1, 0, age + 90_000, config, true)?.message).toBe('not done after 362 minutes');
  });
});

describe('queue delays', () => {
  it('fits short waits in one message', () => {
    expect(queueDelay(1000, 1000 + 30_500, config)).toEqual({ delaySeconds: 31 });
    expect(queueDelay(5000, 1000, config)).toEqual({ delaySeconds: 0 });
  });

  it('chains waits longer than 900 s through dueAt', () => {
    expect(queueDelay(0, 3600_000, config)).toEqual({ delaySeconds: 900, dueAt: 3600_000 });
    expect(queueDelay(0, 900_000, config)).toEqual({ delaySeconds: 900 });
  });

  it('sends a progress check a batching window early, rounded down, so its batch forms at its time and never later', () => {
    const windowed = resolveEngineConfig({ queueBatchingWindowSeconds: 1 });
    // Due at 14 s, sent at 10.4 s: visible at 12.4 s, batched by 13.4 s.
    expect(checkQueueDelay(10_400, 14_000, windowed)).toEqual({ delaySeconds: 2 });
    expect(checkQueueDelay(10_000, 14_000, windowed)).toEqual({ delaySeconds: 3 });
    expect(checkQueueDelay(13_600, 14_000, windowed)).toEqual({ delaySeconds: 0 });
    expect(checkQueueDelay(10_000, 14_000, resolveEngineConfig({ queueBatchingWindowSeconds: 0 }))).toEqual({ delaySeconds: 4 });
    expect(checkQueueDelay(0, 3600_000, windowed)).toEqual({ delaySeconds: 900, dueAt: 3600_000 });
  });
});

describe('config', () => {
  it('merges partial overrides over the defaults, nested records per key', () => {
    // Each nested record names one key only: the others come from the defaults, not from the override.
    const defaults = structuredClone(DEFAULT_ENGINE_CONFIG);
    const resolved = resolveEngineConfig({
      maxAttempts: 3,
      rateBudgets: { CreateVolume: { burst: 1, ratePerSecond: 1 } } as EngineConfig['rateBudgets'],
      accountRateBudgets: { DeleteVolume: { burst: 2, ratePerSecond: 2 } } as EngineConfig['accountRateBudgets'],
      progressChecks: { attach: { firstSeconds: 5, growth: 1, maxSeconds: 30 } } as EngineConfig['progressChecks'],
      backoff: { capSeconds: 60 } as EngineConfig['backoff'],
      throttleBackoff: { maxSeconds: 40 } as EngineConfig['throttleBackoff'],
      snapshotWait: { maxSeconds: 60 } as EngineConfig['snapshotWait'],
      describeChunkSize: { volumes: 2 } as EngineConfig['describeChunkSize'],
    });
    expect(resolved).toEqual({
      ...defaults,
      maxAttempts: 3,
      rateBudgets: { ...defaults.rateBudgets, CreateVolume: { burst: 1, ratePerSecond: 1 } },
      accountRateBudgets: { ...defaults.accountRateBudgets, DeleteVolume: { burst: 2, ratePerSecond: 2 } },
      progressChecks: { ...defaults.progressChecks, attach: { firstSeconds: 5, growth: 1, maxSeconds: 30 } },
      backoff: { ...defaults.backoff, capSeconds: 60 },
      throttleBackoff: { ...defaults.throttleBackoff, maxSeconds: 40 },
      snapshotWait: { ...defaults.snapshotWait, maxSeconds: 60 },
      describeChunkSize: { ...defaults.describeChunkSize, volumes: 2 },
    });
    // The defaults themselves are left as they were (compared with a copy taken before: a default
    // changed in place would compare equal to itself).
    expect(DEFAULT_ENGINE_CONFIG).toEqual(defaults);
    expect(resolveEngineConfig()).toEqual(defaults);
  });

  it('offers enough distinct device names for a heavily attached instance', () => {
    expect(new Set(DEFAULT_ENGINE_CONFIG.deviceNames).size).toBe(DEFAULT_ENGINE_CONFIG.deviceNames.length);
    expect(DEFAULT_ENGINE_CONFIG.deviceNames.length).toBeGreaterThanOrEqual(40);
    expect(DEFAULT_ENGINE_CONFIG.deviceNames[0]).toBe('/dev/sdf');
    // /dev/sd[f-z], then /dev/xvd[b-c][a-z], each range to its last letter.
    expect(DEFAULT_ENGINE_CONFIG.deviceNames).toHaveLength(21 + 2 * 26);
    expect(DEFAULT_ENGINE_CONFIG.deviceNames.slice(19, 23)).toEqual(['/dev/sdy', '/dev/sdz', '/dev/xvdba', '/dev/xvdbb']);
    expect(DEFAULT_ENGINE_CONFIG.deviceNames.at(-1)).toBe('/dev/xvdcz');
  });

  it("spends EC2's account-wide buckets less a reserve of 5 tokens each, at their refill", () => {
    for (const [bucket, budget] of Object.entries(EC2_REQUEST_BUCKETS))
      expect(DEFAULT_ENGINE_CONFIG.accountRateBudgets[bucket as keyof typeof EC2_REQUEST_BUCKETS], bucket).toEqual({ burst: budget.burst - 5, ratePerSecond: budget.ratePerSecond });
  });
});
