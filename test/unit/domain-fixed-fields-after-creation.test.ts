/**
 * The fields fixed when a volume is created (docs/api.md: placement, encryption, snapshot and
 * multi-attach stay as the volume was created with): each one's change refused, by name.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeSpec } from '../../lib/domain/records.js';
import { IMMUTABLE_FIELDS, validateSpecChange } from '../../lib/domain/validation.js';

describe('fields fixed at creation', () => {
  const created: VolumeSpec = { sizeGiB: 100, volumeType: 'io2', iops: 1000, availabilityZone: 'us-east-1a', encrypted: true, kmsKeyId: 'alias/a', snapshotId: 'snap-01234567', multiAttach: true };
  const changes: Array<[string, Partial<VolumeSpec>]> = [
    ['availabilityZone', { availabilityZone: 'us-east-1b' }],
    ['placementInstanceId', { availabilityZone: undefined, placementInstanceId: 'i-01234567' }],
    ['encrypted', { encrypted: false, kmsKeyId: undefined }],
    ['kmsKeyId', { kmsKeyId: 'alias/b' }],
    ['snapshotId', { snapshotId: 'snap-89abcdef' }],
    ['multiAttach', { multiAttach: false }],
  ];

  it('are the placement, encryption, snapshot and multi-attach fields', () => {
    expect([...IMMUTABLE_FIELDS].sort()).toEqual(changes.map(([field]) => field).sort());
  });

  it.each(changes)('refuses a change of %s, naming it', (field, change) => {
    expect(validateSpecChange(created, { ...created, ...change })).toContainEqual({ path: `spec.${field}`, message: 'is fixed when the volume is created' });
  });

  it('refuses a snapshot named after creation, and one left out that the volume was created from', () => {
    const { snapshotId: _none, ...withoutSnapshot } = created;
    expect(validateSpecChange(withoutSnapshot, created)).toEqual([{ path: 'spec.snapshotId', message: 'is fixed when the volume is created' }]);
    expect(validateSpecChange(created, withoutSnapshot)).toEqual([{ path: 'spec.snapshotId', message: 'is fixed when the volume is created' }]);
  });
});
