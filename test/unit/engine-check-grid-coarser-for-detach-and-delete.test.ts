/**
 * Progress checks fall due on a shared grid. Detach and delete gate nobody waiting, so by default
 * their checks take a coarser grid (fewer DescribeVolumes) than those of create and attach
 * (lib/engine/config.ts, the defaults' progress checks): a check due between two points of the
 * finer grid runs later for a delete or a detach than for a create or an attach.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_ENGINE_CONFIG as config } from '../../lib/engine/config.js';
import { alignedCheckAtMs } from '../../lib/engine/schedule.js';

describe('the default check grids of detach and delete', () => {
  it('are coarser than those of create and attach', () => {
    const gated = ['create-volume', 'check-volume', 'attach', 'check-attachment'] as const;
    const ungated = ['delete-volume', 'detach'] as const;
    for (const dueAtMs of [12_500, 14_000, 60_001]) {
      const fine = Math.max(...gated.map((op) => alignedCheckAtMs(op, dueAtMs, config)));
      for (const op of ungated) {
        expect(alignedCheckAtMs(op, dueAtMs, config)).toBeGreaterThanOrEqual(fine);
      }
    }
    // Due at 12.5 s: the finer grid's next point is 14 s, the coarser one's later.
    expect(Math.max(...gated.map((op) => alignedCheckAtMs(op, 12_500, config)))).toBe(14_000);
    for (const op of ungated) expect(alignedCheckAtMs(op, 12_500, config)).toBeGreaterThan(14_000);
  });
});
