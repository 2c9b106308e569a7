/**
 * A volume still to be created needs a place: its spec's AZ or instance, or the AZ the system
 * resolved and recorded for it. A dying attachment is detached and removed whatever device it asked
 * for before names were held to EC2's (any two letters after /dev/xvd).
 */
import { describe, expect, it } from 'vitest';
import { parseRecord } from '../../lib/domain/validation.js';
import { newAttachment, newVolume } from './engine-fixtures.js';

function pathsOf(record: unknown): string[] {
  const parsed = parseRecord(record);
  return parsed.ok ? [] : parsed.issues.map((issue) => issue.path);
}

describe('the place of a volume still to be created', () => {
  it('reads one whose spec names no place when the AZ it goes in is recorded', () => {
    const unplaced = { sizeGiB: 10, volumeType: 'gp3' } as const;
    expect(pathsOf({ ...newVolume('v1'), spec: unplaced, availabilityZone: 'us-east-1b' })).toEqual([]);
    expect(pathsOf({ ...newVolume('v1'), spec: unplaced })).toEqual(['spec.availabilityZone']);
  });
});

describe("a dying attachment's requested device", () => {
  it('reads any two letters after /dev/xvd, up to /dev/xvdzz, and no more than two', () => {
    for (const device of ['/dev/xvdea', '/dev/xvdza', '/dev/xvdzz']) {
      expect(pathsOf(newAttachment('v1', { life: 'dying', requestedDevice: device }))).toEqual([]);
      expect(pathsOf(newAttachment('v1', { requestedDevice: device }))).toEqual(['requestedDevice']);
    }
    expect(pathsOf(newAttachment('v1', { life: 'dying', requestedDevice: '/dev/xvdzzz' }))).toEqual(['requestedDevice']);
  });
});

describe("a dying attachment's requested device, one letter after /dev/sd", () => {
  it('refuses /dev/sda, which was never taken', () => {
    expect(pathsOf(newAttachment('v1', { life: 'dying', requestedDevice: '/dev/sdb' }))).toEqual([]);
    expect(pathsOf(newAttachment('v1', { life: 'dying', requestedDevice: '/dev/sda' }))).toEqual(['requestedDevice']);
  });
});
