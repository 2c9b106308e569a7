/**
 * Elastic Volumes do not modify magnetic (`standard`) volumes: docs/api.md says a standard volume
 * cannot be modified, nor another volume changed to standard; its tags may still change.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeSpec } from '../../lib/domain/records.js';
import { validateSpecChange } from '../../lib/domain/validation.js';

const MAGNETIC = { path: 'spec.volumeType', message: 'magnetic (standard) volumes cannot be modified' };

describe('changes of magnetic volumes', () => {
  it('refuses changing a gp3 or io1 volume to standard', () => {
    const gp3: VolumeSpec = { sizeGiB: 100, volumeType: 'gp3' };
    const io1: VolumeSpec = { sizeGiB: 100, volumeType: 'io1', iops: 1000 };
    expect(validateSpecChange(gp3, { sizeGiB: 100, volumeType: 'standard' })).toEqual([MAGNETIC]);
    expect(validateSpecChange(io1, { sizeGiB: 100, volumeType: 'standard' })).toEqual([MAGNETIC]);
  });

  it('refuses growing a standard volume or changing its type', () => {
    const standard: VolumeSpec = { sizeGiB: 100, volumeType: 'standard' };
    expect(validateSpecChange(standard, { ...standard, sizeGiB: 200 })).toEqual([MAGNETIC]);
    expect(validateSpecChange(standard, { sizeGiB: 100, volumeType: 'gp3' })).toEqual([MAGNETIC]);
  });

  it("takes a standard volume's tags changing, its size and type as they are", () => {
    const standard: VolumeSpec = { sizeGiB: 100, volumeType: 'standard', tags: { team: 'a' } };
    expect(validateSpecChange(standard, { ...standard, tags: { team: 'b' } })).toEqual([]);
  });
});
