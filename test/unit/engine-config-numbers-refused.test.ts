/**
 * The engine's config refuses a number it could not work with, naming the setting, the rule and
 * the value, before anything is built on it: a queue delay SQS would refuse (whole seconds from 1 to
 * 900), a batching window Lambda would refuse (whole seconds from 0 to 300), a count that is not a
 * whole number, a duration or rate below 0 or not a number, a budget that never refills, a backoff
 * cap below the second every retry waits at least.
 */
import { describe, expect, it } from 'vitest';
import { resolveEngineConfig, type EngineConfig } from '../../lib/engine/config.js';
import { Executor } from '../../lib/engine/executor.js';
import { harness } from './engine-fixtures.js';
import { silentLog } from '../../lib/memory/log.js';

const as = (partial: object): Partial<EngineConfig> => partial as Partial<EngineConfig>;

describe('numbers refused by the engine config', () => {
  it('takes a message delay of whole seconds from 1 to 900 only', () => {
    expect(resolveEngineConfig({ maxMessageDelaySeconds: 1 }).maxMessageDelaySeconds).toBe(1);
    expect(resolveEngineConfig({ maxMessageDelaySeconds: 900 }).maxMessageDelaySeconds).toBe(900);
    expect(() => resolveEngineConfig({ maxMessageDelaySeconds: 0 })).toThrow(new RangeError('maxMessageDelaySeconds must be an integer from 1 to 900, got 0'));
    expect(() => resolveEngineConfig({ maxMessageDelaySeconds: 901 })).toThrow(new RangeError('maxMessageDelaySeconds must be an integer from 1 to 900, got 901'));
    expect(() => resolveEngineConfig({ maxMessageDelaySeconds: 1.5 })).toThrow(new RangeError('maxMessageDelaySeconds must be an integer from 1 to 900, got 1.5'));
    expect(() => resolveEngineConfig({ maxMessageDelaySeconds: Number.NaN })).toThrow(/^maxMessageDelaySeconds must be an integer from 1 to 900, got NaN$/);
  });

  it('builds no executor on a refused number', () => {
    const h = harness();
    expect(() => new Executor({ store: h.store, queue: h.queue, provider: h.ebs, clock: h.clock, metrics: h.metrics, log: silentLog, config: { maxMessageDelaySeconds: 1000 } })).toThrow(RangeError);
  });

  it('takes a batching window of whole seconds from 0 to 300 only', () => {
    expect(resolveEngineConfig({ queueBatchingWindowSeconds: 0 }).queueBatchingWindowSeconds).toBe(0);
    expect(resolveEngineConfig({ queueBatchingWindowSeconds: 300 }).queueBatchingWindowSeconds).toBe(300);
    expect(() => resolveEngineConfig({ queueBatchingWindowSeconds: -1 })).toThrow('queueBatchingWindowSeconds must be an integer from 0 to 300, got -1');
    expect(() => resolveEngineConfig({ queueBatchingWindowSeconds: 301 })).toThrow('queueBatchingWindowSeconds must be an integer from 0 to 300, got 301');
    expect(() => resolveEngineConfig({ queueBatchingWindowSeconds: 0.5 })).toThrow('queueBatchingWindowSeconds must be an integer from 0 to 300, got 0.5');
  });

  it.each([
    [{ maxAttempts: 0 }, 'maxAttempts must be a positive integer, got 0'],
    [{ maxAttempts: 2.5 }, 'maxAttempts must be a positive integer, got 2.5'],
    [{ concurrentEnvironments: 0 }, 'concurrentEnvironments must be a positive integer, got 0'],
    [{ reconcilerScanSegments: 1_000_001 }, 'reconcilerScanSegments must be an integer from 1 to 1000000, got 1000001'],
    [{ describeChunkSize: { volumes: 501 } }, 'describeChunkSize.volumes must be an integer from 1 to 500, got 501'],
    [{ describeChunkSize: { instances: 0 } }, 'describeChunkSize.instances must be an integer from 1 to 1000, got 0'],
    [{ claimLeaseMs: 0 }, 'claimLeaseMs must be a positive number, got 0'],
    [{ maxOperationAgeMs: Number.POSITIVE_INFINITY }, 'maxOperationAgeMs must be a positive number, got Infinity'],
    [{ describeGraceMs: -1 }, 'describeGraceMs must be a number of at least 0, got -1'],
    [{ instanceCacheTtlMs: Number.NaN }, 'instanceCacheTtlMs must be a number of at least 0, got NaN'],
    [{ rateWaitMaxMs: -1 }, 'rateWaitMaxMs must be a number of at least 0, got -1'],
    [{ tokenReservationHorizonMs: -1 }, 'tokenReservationHorizonMs must be a number of at least 0, got -1'],
    [{ throttleRateFactor: 0 }, 'throttleRateFactor must be above 0 and at most 1, got 0'],
    [{ throttleRateFactor: 2 }, 'throttleRateFactor must be above 0 and at most 1, got 2'],
    [{ backoff: { baseSeconds: -2 } }, 'backoff.baseSeconds must be a number of at least 0, got -2'],
    [{ backoff: { capSeconds: 0 } }, 'backoff.capSeconds must be a number of at least 1 (every retry waits at least a second), got 0'],
    [{ backoff: { capSeconds: 0.5 } }, 'backoff.capSeconds must be a number of at least 1 (every retry waits at least a second), got 0.5'],
    [{ backoff: { capSeconds: Number.NaN } }, 'backoff.capSeconds must be a number of at least 1 (every retry waits at least a second), got NaN'],
    [{ backoff: { capSeconds: Number.POSITIVE_INFINITY } }, 'backoff.capSeconds must be a number of at least 1 (every retry waits at least a second), got Infinity'],
    [{ throttleBackoff: { minSeconds: 30 } }, 'throttleBackoff.maxSeconds must be a number of at least minSeconds (30), got 20'],
    [{ snapshotWait: { firstSeconds: 2, growth: -0.5, maxSeconds: 900 } }, 'snapshotWait.growth must be a number of at least 0, got -0.5'],
    [{ progressChecks: { attach: { firstSeconds: 2, growth: 0.5, maxSeconds: 60, alignSeconds: 1.5 } } }, 'progressChecks.attach.alignSeconds must be a positive integer, got 1.5'],
    [{ snapshotWait: { firstSeconds: 2, growth: 0.5, maxSeconds: 900, alignSeconds: 0 } }, 'snapshotWait.alignSeconds must be a positive integer, got 0'],
    [{ rateBudgets: { AttachVolume: { burst: 10, ratePerSecond: 0 } } }, 'rateBudgets.AttachVolume.ratePerSecond must be a positive number, got 0'],
    [{ accountRateBudgets: { CreateTags: { burst: 0, ratePerSecond: 10 } } }, 'accountRateBudgets.CreateTags.burst must be a number of at least 1 (a call takes a whole token), got 0'],
    [{ rateBudgets: { CreateVolume: { burst: 20, ratePerSecond: 2, maxRatePerSecond: 1 } } }, 'rateBudgets.CreateVolume.maxRatePerSecond must be a number of at least ratePerSecond (2), got 1'],
  ])('refuses %j', (partial, message) => {
    expect(() => resolveEngineConfig(as(partial))).toThrow(new RangeError(message));
  });

  it('takes the bounds themselves', () => {
    const config = resolveEngineConfig({
      maxAttempts: 1,
      reconcilerScanSegments: 1_000_000,
      describeChunkSize: { volumes: 500, instances: 1000 },
      describeGraceMs: 0,
      instanceCacheTtlMs: 0,
      rateWaitMaxMs: 0,
      tokenReservationHorizonMs: 0,
      throttleRateFactor: 1,
      throttleBackoff: { minSeconds: 5, maxSeconds: 5 },
      backoff: { baseSeconds: 0, capSeconds: 1 },
      rateBudgets: { AttachVolume: { burst: 10, ratePerSecond: 1, maxRatePerSecond: 1 } } as EngineConfig['rateBudgets'],
      progressChecks: { attach: { firstSeconds: 2, growth: 0.5, maxSeconds: 60, alignSeconds: 1 } } as EngineConfig['progressChecks'],
    });
    expect(config.rateBudgets.AttachVolume).toEqual({ burst: 10, ratePerSecond: 1, maxRatePerSecond: 1 });
    expect(config.describeChunkSize).toEqual({ volumes: 500, instances: 1000 });
    expect(config.throttleRateFactor).toBe(1);
    expect(config.backoff).toEqual({ baseSeconds: 0, capSeconds: 1 });
  });
});
