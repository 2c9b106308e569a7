/**
 * Elastic Volumes modify magnetic (`standard`) volumes as any other type, and change other volumes
 * to `standard`, within the target type's limits (ModifyVolume lists `standard: 1 - 1024 GiB` among
 * its target sizes): docs/api.md says so. Volumes still only grow.
 */
import { describe, expect, it } from 'vitest';
import { VolumeService } from '../../lib/api/service.js';
import type { VolumeRecord, VolumeSpec } from '../../lib/domain/records.js';
import { validateSpecChange } from '../../lib/domain/validation.js';
import { modificationNeeded } from '../../lib/engine/planner.js';
import { MemoryRecordStore } from '../../lib/memory/store.js';
import { ManualClock } from './api-fixtures.js';
import { created, volume } from './planner-fixtures.js';

describe('changes of magnetic volumes', () => {
  it('takes changing a gp3 or io1 volume to standard within 1024 GiB', () => {
    const gp3: VolumeSpec = { sizeGiB: 100, volumeType: 'gp3' };
    const io1: VolumeSpec = { sizeGiB: 100, volumeType: 'io1', iops: 1000 };
    expect(validateSpecChange(gp3, { sizeGiB: 100, volumeType: 'standard' })).toEqual([]);
    expect(validateSpecChange(io1, { sizeGiB: 1_024, volumeType: 'standard' })).toEqual([]);
  });

  it('takes growing a standard volume to 1024 GiB and changing its type', () => {
    const standard: VolumeSpec = { sizeGiB: 100, volumeType: 'standard' };
    expect(validateSpecChange(standard, { ...standard, sizeGiB: 1_024 })).toEqual([]);
    expect(validateSpecChange(standard, { sizeGiB: 100, volumeType: 'gp3' })).toEqual([]);
    expect(validateSpecChange(standard, { sizeGiB: 500, volumeType: 'st1' })).toEqual([]);
  });

  it("refuses a target beyond standard's sizes, a shrink, and a type whose sizes the volume is outside", () => {
    const gp3: VolumeSpec = { sizeGiB: 2_000, volumeType: 'gp3' };
    const standard: VolumeSpec = { sizeGiB: 100, volumeType: 'standard' };
    expect(validateSpecChange(gp3, { sizeGiB: 2_000, volumeType: 'standard' }).map((issue) => issue.path)).toEqual(['spec.sizeGiB']);
    expect(validateSpecChange(standard, { ...standard, sizeGiB: 1_025 }).map((issue) => issue.path)).toEqual(['spec.sizeGiB']);
    expect(validateSpecChange(standard, { ...standard, sizeGiB: 50 })).toEqual([
      { path: 'spec.sizeGiB', message: 'EBS volumes can only grow: 100 GiB cannot become 50 GiB' },
    ]);
    expect(validateSpecChange(standard, { sizeGiB: 100, volumeType: 'st1' }).map((issue) => issue.path)).toEqual(['spec.sizeGiB']);
  });

  it("takes a standard volume's tags changing, its size and type as they are", () => {
    const standard: VolumeSpec = { sizeGiB: 100, volumeType: 'standard', tags: { team: 'a' } };
    expect(validateSpecChange(standard, { ...standard, tags: { team: 'b' } })).toEqual([]);
  });
});

describe('the watcher and the API on magnetic volumes', () => {
  const onEc2 = (observed: VolumeRecord['observed'], spec: VolumeSpec) => volume('available', { ...created, observed, spec });

  it('asks ModifyVolume to grow a standard volume, change its type, or make a gp3 volume standard', () => {
    const standard = { sizeGiB: 10, volumeType: 'standard' as const, tags: {} };
    expect(modificationNeeded(onEc2(standard, { sizeGiB: 20, volumeType: 'standard', availabilityZone: 'eu-west-1a' }))).toEqual({ ebsVolumeId: 'vol-1', sizeGiB: 20 });
    expect(modificationNeeded(onEc2(standard, { sizeGiB: 10, volumeType: 'gp3', availabilityZone: 'eu-west-1a' }))).toEqual({
      ebsVolumeId: 'vol-1',
      volumeType: 'gp3',
      iops: 3_000,
      throughput: 125,
    });
    expect(modificationNeeded(onEc2(created.observed, { sizeGiB: 10, volumeType: 'standard', availabilityZone: 'eu-west-1a' }))).toEqual({
      ebsVolumeId: 'vol-1',
      volumeType: 'standard',
    });
  });

  it('takes a PATCH growing a created standard volume', async () => {
    const store = new MemoryRecordStore();
    const service = new VolumeService({ store, clock: new ManualClock() });
    const spec = { sizeGiB: 10, volumeType: 'standard' as const, availabilityZone: 'us-east-1a' };
    await service.createVolume({ volumeId: 'data-01', spec });
    await store.update<VolumeRecord>(
      { kind: 'volume', volumeId: 'data-01' },
      { createRequest: { clientToken: 'ebsp-data-01-g1', availabilityZone: 'us-east-1a', spec }, ebsVolumeId: 'vol-0123456789abcdef0', observed: { sizeGiB: 10, volumeType: 'standard' } },
    );
    const patched = await service.patchVolume('data-01', { sizeGiB: 20 });
    expect(patched.spec).toMatchObject({ sizeGiB: 20, volumeType: 'standard' });
  });
});
