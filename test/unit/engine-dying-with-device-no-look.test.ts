/**
 * Only a dying attachment that never sent AttachVolume (pending or in error, no device) looks at
 * EC2 before it is removed: one that kept its device may have attached, and is detached.
 */
import { describe, expect, it } from 'vitest';
import { looksBeforeRemoving, planAttachment } from '../../lib/engine/planner.js';
import { attachment, created, volume } from './planner-fixtures.js';

describe('looksBeforeRemoving', () => {
  const inUse = volume('in-use', created);

  it('holds for a dying pending or failed attachment without a device, its volume in use', () => {
    expect(looksBeforeRemoving(attachment('pending', { life: 'dying' }), inUse)).toBe(true);
    expect(looksBeforeRemoving(attachment('error', { life: 'dying' }), inUse)).toBe(true);
  });

  it('does not hold for one that kept its device: that one is detached', () => {
    for (const state of ['pending', 'error'] as const) {
      const kept = attachment(state, { life: 'dying', device: '/dev/sdf' });
      expect(looksBeforeRemoving(kept, inUse)).toBe(false);
      expect(planAttachment(kept, inUse)).toMatchObject({ type: 'operation', op: 'detach' });
    }
  });
});
