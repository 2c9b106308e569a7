/**
 * The bounds of the free-text fields an executor writes on a record (the instance description an
 * attachment keeps, a claim's owner): every one bounded, so a valid record stays well within the
 * table's item limit, and none empty where the system always writes something.
 */
import { describe, expect, it } from 'vitest';
import { parseRecord } from '../../lib/domain/validation.js';
import { newAttachment, newVolume } from './engine-fixtures.js';

function pathsOf(record: unknown): string[] {
  const parsed = parseRecord(record);
  return parsed.ok ? [] : parsed.issues.map((issue) => issue.path);
}

describe("an attachment's instance description", () => {
  const seen = (fields: Record<string, unknown> = {}) =>
    newAttachment('v1', { instanceSeen: { availabilityZone: 'us-east-1a', state: 'running', otherDevices: ['/dev/xvda'], describedAt: 0, ...fields } } as never);

  it('reads up to 128 other devices of 1–64 characters each, and an AZ of 1–64 characters', () => {
    expect(pathsOf(seen({ otherDevices: Array.from({ length: 128 }, (_, i) => `/dev/${'x'.repeat(56)}${String(i).padStart(3, '0')}`) }))).toEqual([]);
    expect(pathsOf(seen({ otherDevices: ['d'], availabilityZone: 'a'.repeat(64) }))).toEqual([]);
  });

  it('refuses 129 other devices, an empty or 65-character device, and an empty or 65-character AZ', () => {
    expect(pathsOf(seen({ otherDevices: Array.from({ length: 129 }, (_, i) => `/dev/sd${i}`) }))).toEqual(['instanceSeen.otherDevices']);
    expect(pathsOf(seen({ otherDevices: [''] }))).toEqual(['instanceSeen.otherDevices.0']);
    expect(pathsOf(seen({ otherDevices: ['d'.repeat(65)] }))).toEqual(['instanceSeen.otherDevices.0']);
    expect(pathsOf(seen({ availabilityZone: '' }))).toEqual(['instanceSeen.availabilityZone']);
    expect(pathsOf(seen({ availabilityZone: 'a'.repeat(65) }))).toEqual(['instanceSeen.availabilityZone']);
  });
});

describe("a claim's owner", () => {
  it('reads an owner of 1 and of 256 characters, and refuses an empty one or one of 257', () => {
    const claimed = (owner: string) => newVolume('v1', { claim: { owner, expiresAt: 0 } });
    expect(pathsOf(claimed('e'))).toEqual([]);
    expect(pathsOf(claimed('e'.repeat(256)))).toEqual([]);
    expect(pathsOf(claimed(''))).toEqual(['claim.owner']);
    expect(pathsOf(claimed('e'.repeat(257)))).toEqual(['claim.owner']);
  });
});
