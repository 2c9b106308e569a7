/**
 * Progress-check schedules are keyed by operation (`OPERATION_KINDS`), each merged over its
 * default. A schedule under any other name would never be read, so the engine's config refuses
 * it, as it refuses a rate budget under a name that is no EC2 request bucket; and an entry that
 * holds no schedule (or no budget) gets the same clear error as a number it could not work with,
 * naming the setting, before anything is built on it.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_ENGINE_CONFIG, resolveEngineConfig, type EngineConfig } from '../../lib/engine/config.js';
import { Executor } from '../../lib/engine/executor.js';
import { silentLog } from '../../lib/memory/log.js';
import { harness } from './engine-fixtures.js';

const as = (partial: object): Partial<EngineConfig> => partial as Partial<EngineConfig>;
const QUICK = { firstSeconds: 1, growth: 0.5, maxSeconds: 5 };

describe('progress-check schedules keyed by operation', () => {
  it('refuses a name that is no operation, listing the operations', () => {
    expect(() => resolveEngineConfig(as({ progressChecks: { 'attach-volume': QUICK } }))).toThrow(
      new RangeError(
        'progressChecks.attach-volume is not an operation (create-volume, check-volume, modify-volume, tag-volume, delete-volume, attach, check-attachment, detach)',
      ),
    );
    // A name every object answers to is no operation either.
    expect(() => resolveEngineConfig(as({ progressChecks: { toString: QUICK } }))).toThrow(/^progressChecks\.toString is not an operation \(/);
    const h = harness();
    expect(() => new Executor({ store: h.store, queue: h.queue, provider: h.ebs, clock: h.clock, metrics: h.metrics, log: silentLog, config: as({ progressChecks: { detatch: QUICK } }) })).toThrow(
      RangeError,
    );
  });

  it('takes each operation by its name, merged over the defaults', () => {
    const config = resolveEngineConfig(as({ progressChecks: { detach: QUICK } }));
    expect(config.progressChecks).toEqual({ ...DEFAULT_ENGINE_CONFIG.progressChecks, detach: QUICK });
  });

  it.each([
    ['an operation without a schedule', { progressChecks: { attach: undefined } }, 'progressChecks.attach must be a schedule (firstSeconds, growth, maxSeconds), got undefined'],
    ['a null schedule', { progressChecks: { detach: null } }, 'progressChecks.detach must be a schedule (firstSeconds, growth, maxSeconds), got null'],
    ['a bucket without a budget', { rateBudgets: { AttachVolume: undefined } }, 'rateBudgets.AttachVolume must be a rate budget (burst, ratePerSecond), got undefined'],
    ['a null budget', { rateBudgets: { CreateVolume: null } }, 'rateBudgets.CreateVolume must be a rate budget (burst, ratePerSecond), got null'],
    ['a number for a budget', { accountRateBudgets: { CreateTags: 10 } }, 'accountRateBudgets.CreateTags must be a rate budget (burst, ratePerSecond), got 10'],
  ])('refuses %s plainly', (_case, partial, message) => {
    expect(() => resolveEngineConfig(as(partial))).toThrow(new RangeError(message));
  });
});
