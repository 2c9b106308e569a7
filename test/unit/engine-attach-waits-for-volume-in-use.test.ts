/**
 * A pending attachment waits for its single-attach volume only while the volume record says the
 * volume is in use: an available one is attached, with no look first. Only a live attachment that
 * has attached nothing waits so.
 */
import { describe, expect, it } from 'vitest';
import { waitsForVolumeInUse } from '../../lib/engine/planner.js';
import { attachment, created, volume } from './planner-fixtures.js';

describe('waitsForVolumeInUse', () => {
  it('holds for a single-attach volume in use, not for one available, being modified or in error', () => {
    const pending = attachment('pending');
    expect(waitsForVolumeInUse(pending, volume('in-use', created))).toBe(true);
    expect(waitsForVolumeInUse(pending, volume('available', created))).toBe(false);
    expect(waitsForVolumeInUse(pending, volume('modifying', created))).toBe(false);
    expect(waitsForVolumeInUse(pending, volume('error', created))).toBe(false);
  });

  it('holds for a live pending attachment only: one under way or dying follows its own operation', () => {
    const inUse = volume('in-use', created);
    expect(waitsForVolumeInUse(attachment('attaching', { device: '/dev/sdf' }), inUse)).toBe(false);
    expect(waitsForVolumeInUse(attachment('pending', { life: 'dying' }), inUse)).toBe(false);
  });
});
