/**
 * A progress-check schedule and the snapshot wait are durations in seconds: the first wait, the
 * growth with the time waited and the longest wait. The engine's config refuses any of them below
 * 0 or not a number, naming the setting, the rule and the value, and takes 0 itself (a check at
 * once, every time).
 */
import { describe, expect, it } from 'vitest';
import { resolveEngineConfig, type EngineConfig } from '../../lib/engine/config.js';
import { progressDelaySeconds, snapshotWaitSeconds } from '../../lib/engine/schedule.js';

const as = (partial: object): Partial<EngineConfig> => partial as Partial<EngineConfig>;

describe('the bounds of a check schedule', () => {
  it.each([
    [{ progressChecks: { attach: { firstSeconds: -1, growth: 0.5, maxSeconds: 60 } } }, 'progressChecks.attach.firstSeconds must be a number of at least 0, got -1'],
    [{ progressChecks: { detach: { firstSeconds: 2, growth: 0.5, maxSeconds: -1 } } }, 'progressChecks.detach.maxSeconds must be a number of at least 0, got -1'],
    [{ progressChecks: { 'modify-volume': { firstSeconds: Number.NaN, growth: 0.5, maxSeconds: 600 } } }, 'progressChecks.modify-volume.firstSeconds must be a number of at least 0, got NaN'],
    [{ progressChecks: { 'create-volume': { firstSeconds: 2, growth: 0.5, maxSeconds: Number.POSITIVE_INFINITY } } }, 'progressChecks.create-volume.maxSeconds must be a number of at least 0, got Infinity'],
    [{ snapshotWait: { firstSeconds: -2, growth: 0.5, maxSeconds: 900 } }, 'snapshotWait.firstSeconds must be a number of at least 0, got -2'],
    [{ snapshotWait: { firstSeconds: 2, growth: 0.5, maxSeconds: -900 } }, 'snapshotWait.maxSeconds must be a number of at least 0, got -900'],
  ])('refuses %j', (partial, message) => {
    expect(() => resolveEngineConfig(as(partial))).toThrow(new RangeError(message));
  });

  it('takes 0 for each: a check or a call again at once', () => {
    const none = { firstSeconds: 0, growth: 0, maxSeconds: 0 };
    const config = resolveEngineConfig(as({ progressChecks: { attach: none }, snapshotWait: none }));
    expect(config.progressChecks.attach).toEqual(none);
    expect(config.snapshotWait).toEqual(none);
    expect(progressDelaySeconds('attach', 60_000, config)).toBe(0);
    expect(snapshotWaitSeconds(3_600_000, config)).toBe(0);
  });
});
