/**
 * Rate budgets are keyed by EC2 request bucket, one entry each (`RATE_BUCKETS`): an entry under
 * another name (an action that spends another bucket's, such as DetachVolume) would never be read,
 * so the engine's config refuses it with an error naming the bucket it meant.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_ENGINE_CONFIG, RATE_BUCKETS, resolveEngineConfig, type EngineConfig } from '../../lib/engine/config.js';
import { Executor } from '../../lib/engine/executor.js';
import { harness } from './engine-fixtures.js';
import { silentLog } from '../../lib/memory/log.js';

const SLOW = { burst: 1, ratePerSecond: 0.1 };

describe('rate budgets keyed by EC2 request bucket', () => {
  it('has one default entry per bucket, for the own share and the account alike', () => {
    expect(Object.keys(DEFAULT_ENGINE_CONFIG.rateBudgets).sort()).toEqual([...RATE_BUCKETS].sort());
    expect(Object.keys(DEFAULT_ENGINE_CONFIG.accountRateBudgets).sort()).toEqual([...RATE_BUCKETS].sort());
  });

  it("refuses an action's name that spends another bucket's entry, naming that bucket", () => {
    const detach = { rateBudgets: { ...DEFAULT_ENGINE_CONFIG.rateBudgets, DetachVolume: SLOW } } as unknown as Partial<EngineConfig>;
    expect(() => resolveEngineConfig(detach)).toThrow(
      new RangeError('rateBudgets.DetachVolume is not an EC2 request bucket (CreateVolume, AttachVolume, DeleteVolume, CreateTags); DetachVolume spends the AttachVolume entry'),
    );
    const tags = { accountRateBudgets: { DeleteTags: SLOW } } as unknown as Partial<EngineConfig>;
    expect(() => resolveEngineConfig(tags)).toThrow('accountRateBudgets.DeleteTags is not an EC2 request bucket (CreateVolume, AttachVolume, DeleteVolume, CreateTags); DeleteTags spends the AttachVolume entry');
  });

  it('refuses any other name plainly, and an executor is not built on it', () => {
    const typo = { rateBudgets: { CreateVolumes: SLOW } } as unknown as Partial<EngineConfig>;
    expect(() => resolveEngineConfig(typo)).toThrow(/^rateBudgets\.CreateVolumes is not an EC2 request bucket \(CreateVolume, AttachVolume, DeleteVolume, CreateTags\)$/);
    // A name every object answers to is no action either.
    const inherited = { accountRateBudgets: { toString: SLOW } } as unknown as Partial<EngineConfig>;
    expect(() => resolveEngineConfig(inherited)).toThrow(/^accountRateBudgets\.toString is not an EC2 request bucket \(CreateVolume, AttachVolume, DeleteVolume, CreateTags\)$/);
    const h = harness();
    expect(() => new Executor({ store: h.store, queue: h.queue, provider: h.ebs, clock: h.clock, metrics: h.metrics, log: silentLog, config: typo })).toThrow(RangeError);
  });

  it('takes each bucket by its name, merged over the defaults', () => {
    const config = resolveEngineConfig({ rateBudgets: { ...DEFAULT_ENGINE_CONFIG.rateBudgets, AttachVolume: SLOW } });
    expect(config.rateBudgets).toEqual({ ...DEFAULT_ENGINE_CONFIG.rateBudgets, AttachVolume: SLOW });
    expect(resolveEngineConfig({}).rateBudgets).toEqual(DEFAULT_ENGINE_CONFIG.rateBudgets);
  });
});
