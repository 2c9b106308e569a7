/**
 * A Multi-Attach volume keeps its type (docs/api.md); what it was created with decides, not what a
 * change asks for.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeSpec } from '../../lib/domain/records.js';
import { validateSpecChange } from '../../lib/domain/validation.js';

const KEEPS_TYPE = { path: 'spec.volumeType', message: 'the type of a multi-attach volume cannot be changed' };
const FIXED = { path: 'spec.multiAttach', message: 'is fixed when the volume is created' };

describe('the type of a Multi-Attach volume', () => {
  it('refuses a type change of a volume created Multi-Attach, also when the change drops Multi-Attach', () => {
    const multi: VolumeSpec = { sizeGiB: 100, volumeType: 'io2', iops: 1000, multiAttach: true };
    expect(validateSpecChange(multi, { ...multi, volumeType: 'io1' })).toEqual([KEEPS_TYPE]);
    expect(validateSpecChange(multi, { ...multi, volumeType: 'gp3', iops: 3000, multiAttach: false })).toEqual([KEEPS_TYPE, FIXED]);
  });

  it('takes a type change of a volume created without it, telling only that Multi-Attach is fixed when a change asks for it', () => {
    const single: VolumeSpec = { sizeGiB: 100, volumeType: 'io2', iops: 1000 };
    expect(validateSpecChange(single, { ...single, volumeType: 'io1' })).toEqual([]);
    expect(validateSpecChange(single, { ...single, volumeType: 'io1', multiAttach: true })).toEqual([FIXED]);
  });
});
