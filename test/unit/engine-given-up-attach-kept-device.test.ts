/**
 * A live attachment in error is an attach given up on that EC2 may have made only when it kept its
 * device: a device is allocated just before AttachVolume, so one without a device never reached EC2.
 */
import { describe, expect, it } from 'vitest';
import { givenUpWithDevice } from '../../lib/engine/planner.js';
import { attachment, created, volume } from './planner-fixtures.js';

describe('givenUpWithDevice', () => {
  const available = volume('available', created);

  it('holds for a live attachment in error that kept its device', () => {
    expect(givenUpWithDevice(attachment('error', { device: '/dev/sdf' }), available)).toBe(true);
  });

  it('does not hold for one in error without a device, nor for a dying one', () => {
    expect(givenUpWithDevice(attachment('error'), available)).toBe(false);
    expect(givenUpWithDevice(attachment('error', { device: '/dev/sdf', life: 'dying' }), available)).toBe(false);
  });
});
