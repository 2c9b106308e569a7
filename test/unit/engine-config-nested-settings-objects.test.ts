/**
 * Settings that hold settings of their own (a schedule, a backoff, the budgets) are merged per key
 * over the defaults. One given as anything but an object would vanish in that merge, leaving the
 * defaults without a word: the config refuses it, naming the setting.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_ENGINE_CONFIG, resolveEngineConfig, type EngineConfig } from '../../lib/engine/config.js';

const as = (partial: object): Partial<EngineConfig> => partial as Partial<EngineConfig>;

describe('a nested setting that is not an object', () => {
  it.each([
    ['backoff', 5, '5'],
    ['snapshotWait', 900, '900'],
    ['throttleBackoff', null, 'null'],
    ['progressChecks', 'attach', 'attach'],
    ['rateBudgets', [1, 2], '1,2'],
    ['accountRateBudgets', true, 'true'],
    ['describeChunkSize', 50, '50'],
  ])('refuses %s: %j', (name, value, shown) => {
    expect(() => resolveEngineConfig(as({ [name]: value }))).toThrow(new RangeError(`${name} must be an object of settings, got ${shown}`));
  });

  it('takes one left undefined as not given', () => {
    expect(resolveEngineConfig(as({ backoff: undefined, snapshotWait: undefined }))).toEqual(DEFAULT_ENGINE_CONFIG);
  });
});
