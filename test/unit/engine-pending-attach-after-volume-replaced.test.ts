import { describe, expect, it } from 'vitest';
import { releasedByVolume } from '../../lib/engine/planner.js';
import { attachment, created, volume } from './planner-fixtures.js';

describe('a volume record that let go of its EC2 volume and holds a new one', () => {
  const replaced = volume('available', { ...created, ebsVolumeId: 'vol-2' });

  it('starts the attach of a live attachment that waited for it, with no look first', () => {
    expect(releasedByVolume(attachment('pending'), replaced, true)).toMatchObject({ type: 'operation', op: 'attach', reason: 'volume ready' });
  });

  it('has an attachment that waited for it with a device kept look first, as for any volume', () => {
    expect(releasedByVolume(attachment('pending', { device: '/dev/sdf' }), replaced, true)).toMatchObject({
      type: 'operation',
      op: 'check-attachment',
      reason: 'device kept; may already be attached',
    });
  });

  it('has one attached to the volume let go of leave attached', () => {
    expect(releasedByVolume(attachment('attached', { device: '/dev/sdf' }), replaced, true)).toMatchObject({
      type: 'operation',
      op: 'check-attachment',
      reason: 'volume record data-1 let go of the EC2 volume this attachment was made to',
    });
  });
});
