/**
 * A record written into the table with a field it has no place for is not valid, inside its
 * nested objects as at its top: each is named by its own path, rather than dropped without a word.
 */
import { describe, expect, it } from 'vitest';
import { parseRecord } from '../../lib/domain/validation.js';
import { newAttachment, newVolume } from './engine-fixtures.js';

function pathsOf(record: unknown): string[] {
  const parsed = parseRecord(record);
  return parsed.ok ? [] : parsed.issues.map((issue) => issue.path);
}

const EBS_ID = 'vol-0123456789abcdef0';
const target = { sizeGiB: 20, volumeType: 'gp3' } as const;

describe('fields a record has no place for, inside its objects', () => {
  it("names one in a volume's claim, status, CreateVolume request, observed values and failed modifications' target", () => {
    const volume = newVolume('v1');
    expect(pathsOf({ ...volume, claim: { owner: 'e', expiresAt: 0, extra: 1 } })).toEqual(['claim.extra']);
    expect(pathsOf({ ...volume, status: { ...volume.status, extra: 1 } })).toEqual(['status.extra']);
    expect(pathsOf({ ...volume, createRequest: { clientToken: 't', availabilityZone: 'us-east-1a', spec: volume.spec, extra: 1 } })).toEqual(['createRequest.extra']);
    expect(pathsOf({ ...volume, ebsVolumeId: EBS_ID, observed: { ...target, extra: 1 } })).toEqual(['observed.extra']);
    expect(pathsOf({ ...volume, ebsVolumeId: EBS_ID, failedModifications: { target: { ...target, extra: 1 }, count: 1 } })).toEqual(['failedModifications.target.extra']);
  });

  it("names one at an attachment's top and in its status", () => {
    const attachment = newAttachment('v1');
    expect(pathsOf({ ...attachment, extra: 1 })).toEqual(['extra']);
    expect(pathsOf({ ...attachment, status: { ...attachment.status, extra: 1 } })).toEqual(['status.extra']);
  });

  it('reads each of those records without the field', () => {
    const volume = newVolume('v1');
    expect(pathsOf({ ...volume, ebsVolumeId: EBS_ID, claim: { owner: 'e', expiresAt: 0 }, observed: target, failedModifications: { target, count: 1 } })).toEqual([]);
    expect(pathsOf(newAttachment('v1'))).toEqual([]);
  });
});
