/**
 * The progress checks of a modification are paced by the modification's schedule
 * (`progressChecks['modify-volume']`: first at 15 s, then half the time already spent, at most
 * every 600 s), counted from when it started: one that has run for an hour is looked at about
 * every ten minutes, not at a volume check's pace (at most 120 s) nor at its first checks' pace.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_ENGINE_CONFIG } from '../../lib/engine/config.js';
import { iopsModification, volumeOf } from './engine-fixtures.js';

const HOUR = 3_600_000;

describe('a modification that takes hours', () => {
  it('is checked about every maxSeconds once it has run long enough', async () => {
    const h = await iopsModification({ modify: 3 * HOUR, optimize: 1000 });
    const { maxSeconds } = DEFAULT_ENGINE_CONFIG.progressChecks['modify-volume'];
    expect(maxSeconds).toBe(600);
    const started = Date.parse((await volumeOf(h)).status.operationStartedAt!);
    // Past the first hour: from then on every gap is at the maximum.
    await h.settle(started + HOUR - h.clock.now(), 10_000);
    const checks: number[] = [];
    const describe = h.ebs.describeVolumes.bind(h.ebs);
    h.ebs.describeVolumes = async (...args) => {
      checks.push(h.clock.now());
      return describe(...args);
    };
    await h.settle(HOUR, 10_000);
    expect((await volumeOf(h)).status.state).toBe('modifying');
    // An hour at one look every 600 s: 6 looks (one more at an edge), each a whole gap apart.
    expect(checks.length).toBeGreaterThanOrEqual(5);
    expect(checks.length).toBeLessThanOrEqual(7);
    for (let i = 1; i < checks.length; i++) {
      expect(checks[i]! - checks[i - 1]!).toBeGreaterThanOrEqual(maxSeconds * 1000);
      expect(checks[i]! - checks[i - 1]!).toBeLessThanOrEqual((maxSeconds + 20) * 1000);
    }
  });
});
