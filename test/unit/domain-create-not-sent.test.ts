/**
 * What a volume record says of a CreateVolume or ModifyVolume that may have been sent: an earlier
 * version's unrecorded CreateVolume needs both the AZ and the generation it wrote just before its
 * call, and a ModifyVolume is sent only to a volume whose EC2 id the record holds.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeSpec } from '../../lib/domain/records.js';
import { createSentUnrecorded, ebsBaseline, sizeEc2MayReach, specChangeIssues } from '../../lib/domain/validation.js';

const spec: VolumeSpec = { sizeGiB: 100, volumeType: 'gp3', availabilityZone: 'us-east-1a' };

describe('a CreateVolume an earlier version sent without recording it', () => {
  it('is taken to be sent only with both the AZ and the generation that version wrote', () => {
    expect(createSentUnrecorded({ availabilityZone: 'us-east-1a', observedGeneration: 1 })).toBe(true);
    expect(createSentUnrecorded({ availabilityZone: 'us-east-1a' })).toBe(false);
    expect(createSentUnrecorded({ observedGeneration: 1 })).toBe(false);
  });

  it('leaves a record naming an AZ without that generation still to be created: any valid spec may be asked for', () => {
    const volume = { spec, availabilityZone: 'us-east-1a' };
    expect(ebsBaseline(volume)).toBeUndefined();
    expect(specChangeIssues(volume, { ...spec, sizeGiB: 50 })).toEqual([]);
  });
});

describe('a modification sent', () => {
  it('is none without the EC2 id a ModifyVolume names: a record being created is judged by the size it is created with', () => {
    const creating = {
      spec: { ...spec, sizeGiB: 400 },
      createRequest: { clientToken: 'ebsp-t', availabilityZone: 'us-east-1a', spec },
      modificationSentAt: '2026-01-01T00:00:00.000Z',
    };
    expect(sizeEc2MayReach(creating)).toEqual({ sizeGiB: 100, why: 'the volume was created at 100 GiB' });
    expect(sizeEc2MayReach({ ...creating, modificationSentAt: undefined, status: { state: 'modifying' } })).toEqual({
      sizeGiB: 100,
      why: 'the volume was created at 100 GiB',
    });
    expect(specChangeIssues(creating, { ...spec, sizeGiB: 200 })).toEqual([]);
  });
});
