/**
 * A Multi-Attach volume keeps its type, and on io1 its size and IOPS too (docs/api.md); what it was created with decides, not what a
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

describe('the size and IOPS of a Multi-Attach io1 volume', () => {
  const io1: VolumeSpec = { sizeGiB: 100, volumeType: 'io1', iops: 1000, multiAttach: true };

  it('refuses a size or IOPS change, as EBS does not make them', () => {
    expect(validateSpecChange(io1, { ...io1, sizeGiB: 200 })).toEqual([{ path: 'spec.sizeGiB', message: 'the size of a multi-attach io1 volume cannot be changed' }]);
    expect(validateSpecChange(io1, { ...io1, iops: 2000 })).toEqual([{ path: 'spec.iops', message: 'the IOPS of a multi-attach io1 volume cannot be changed' }]);
    expect(validateSpecChange(io1, { ...io1, sizeGiB: 200, iops: 2000 })).toHaveLength(2);
  });

  it('takes the spec as it is, a tag change, and the same changes of io2 or of a single-attach io1 volume', () => {
    expect(validateSpecChange(io1, { ...io1 })).toEqual([]);
    expect(validateSpecChange(io1, { ...io1, tags: { team: 'a' } })).toEqual([]);
    const io2: VolumeSpec = { ...io1, volumeType: 'io2' };
    expect(validateSpecChange(io2, { ...io2, sizeGiB: 200, iops: 2000 })).toEqual([]);
    const single: VolumeSpec = { sizeGiB: 100, volumeType: 'io1', iops: 1000 };
    expect(validateSpecChange(single, { ...single, sizeGiB: 200, iops: 2000 })).toEqual([]);
  });

  it('tells a type change of it as a type change only', () => {
    expect(validateSpecChange(io1, { ...io1, volumeType: 'io2', sizeGiB: 200 })).toEqual([KEEPS_TYPE]);
  });
});
