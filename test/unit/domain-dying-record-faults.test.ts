/**
 * A dying volume is read whatever its spec, so it can be deleted; one that cannot be deleted either
 * (a fault a delete uses) is told every fault it has, its spec's included, as any invalid record.
 */
import { describe, expect, it } from 'vitest';
import { parseRecord } from '../../lib/domain/validation.js';
import { newVolume } from './engine-fixtures.js';

describe('a dying volume that is not valid', () => {
  it("names its spec's faults beside the one that keeps it from being deleted", () => {
    const record = { ...newVolume('v1', { life: 'dying', ebsVolumeId: 'not-a-volume' as never }), spec: { sizeGiB: 0, volumeType: 'gp3' } };
    const parsed = parseRecord(record);
    expect(parsed.ok ? [] : parsed.issues.map((issue) => issue.path).sort()).toEqual(['ebsVolumeId', 'spec.sizeGiB']);
  });
});
