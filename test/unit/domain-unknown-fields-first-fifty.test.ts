/**
 * An object's unknown fields are named one by one up to the first 50, as docs/api.md says; the
 * others are counted in one issue on the object.
 */
import { describe, expect, it } from 'vitest';
import { parseRecord, validateVolumeSpec } from '../../lib/domain/validation.js';
import { newVolume } from './engine-fixtures.js';

const fields = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`f${i}`, 1]));

describe('unknown fields past the first 50', () => {
  it('names 50 unknown fields of a spec each, and counts the 51st', () => {
    const fifty = validateVolumeSpec({ sizeGiB: 10, volumeType: 'gp3', availabilityZone: 'us-east-1a', ...fields(50) });
    expect(fifty.ok ? [] : fifty.issues.map((issue) => issue.path)).toEqual(Array.from({ length: 50 }, (_, i) => `spec.f${i}`));
    const more = validateVolumeSpec({ sizeGiB: 10, volumeType: 'gp3', availabilityZone: 'us-east-1a', ...fields(51) });
    expect(more.ok ? [] : more.issues).toHaveLength(51);
    expect(more.ok ? undefined : more.issues[49]).toEqual({ path: 'spec.f49', message: 'is not a known field' });
    expect(more.ok ? undefined : more.issues[50]).toEqual({ path: 'spec', message: 'and 1 more unknown field' });
  });

  it('counts a record\'s unknown fields past the first 50 in one issue on the record', () => {
    const parsed = parseRecord({ ...newVolume('v1'), ...fields(53) });
    expect(parsed.ok ? [] : parsed.issues.slice(49)).toEqual([
      { path: 'f49', message: 'is not a known field' },
      { path: '', message: 'and 3 more unknown fields' },
    ]);
  });
});
