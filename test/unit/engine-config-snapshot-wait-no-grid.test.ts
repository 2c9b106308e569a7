/**
 * The snapshot wait is a schedule without a grid: each volume waits on its own snapshot, so
 * `snapshotWait.alignSeconds` would be taken and never used. The config refuses it, naming the
 * setting, and a progress check's `alignSeconds` is still taken.
 */
import { describe, expect, it } from 'vitest';
import { resolveEngineConfig, type EngineConfig } from '../../lib/engine/config.js';

const as = (partial: object): Partial<EngineConfig> => partial as Partial<EngineConfig>;

describe('snapshotWait.alignSeconds', () => {
  it.each([2, 1])('refuses %j', (alignSeconds) => {
    expect(() => resolveEngineConfig(as({ snapshotWait: { firstSeconds: 2, growth: 0.5, maxSeconds: 900, alignSeconds } }))).toThrow(
      new RangeError(`snapshotWait.alignSeconds must be left unset (a snapshot wait falls on no shared grid), got ${alignSeconds}`),
    );
  });

  it("takes a progress check's grid beside a snapshot wait without one", () => {
    const config = resolveEngineConfig(as({ progressChecks: { attach: { firstSeconds: 2, growth: 0.5, maxSeconds: 60, alignSeconds: 3 } }, snapshotWait: { firstSeconds: 5, growth: 0.5, maxSeconds: 600 } }));
    expect(config.progressChecks.attach.alignSeconds).toBe(3);
    expect(config.snapshotWait).toEqual({ firstSeconds: 5, growth: 0.5, maxSeconds: 600 });
  });
});
