/** PATCH of a volume's placement while nothing is created: one placement replaces the other. */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { INSTANCE_A, INSTANCE_B, problemOf, serviceWorld } from './api-fixtures.js';

describe('PATCH availabilityZone of a volume placed by an instance', () => {
  it('replaces the placement instance with the AZ while nothing is created', async () => {
    const { store, service } = serviceWorld();
    await service.createVolume({ volumeId: 'data-01', spec: { sizeGiB: 20, volumeType: 'gp3', placementInstanceId: INSTANCE_A } });
    // EC2 refused the create: nothing was created, and the volume rests in error.
    await store.update<VolumeRecord>(
      { kind: 'volume', volumeId: 'data-01' },
      { status: { state: 'error', code: 'InvalidInstanceID.NotFound', attempts: 1, updatedAt: '2026-01-01T00:00:00.000Z' } },
    );
    const moved = await service.patchVolume('data-01', { availabilityZone: 'us-east-1b' });
    expect(moved.spec).toStrictEqual({ sizeGiB: 20, volumeType: 'gp3', availabilityZone: 'us-east-1b' });
    expect(moved.generation).toBe(2);
    expect((await service.getVolume('data-01')).spec).toStrictEqual({ sizeGiB: 20, volumeType: 'gp3', availabilityZone: 'us-east-1b' });
  });
});

describe('PATCH of the placement of a created volume placed by the other field', () => {
  const created = async (spec: VolumeRecord['spec']) => {
    const { store, service } = serviceWorld();
    await service.createVolume({ volumeId: 'data-01', spec });
    await store.update<VolumeRecord>({ kind: 'volume', volumeId: 'data-01' }, { ebsVolumeId: 'vol-0123456789abcdef0' });
    return { store, service };
  };
  const fixedEnd = 'EC2 created it as vol-0123456789abcdef0, so delete the volume and create another to change it';

  it('is refused once, on availabilityZone, saying the volume was placed in the AZ of its instance', async () => {
    const { store, service } = await created({ sizeGiB: 20, volumeType: 'gp3', placementInstanceId: INSTANCE_A });
    const problem = await problemOf(() => service.patchVolume('data-01', { availabilityZone: 'us-east-1b' }));
    expect(problem.errors).toStrictEqual([
      { path: 'availabilityZone', message: `the volume's placement is fixed when the volume is created, and it was placed in the AZ of ${INSTANCE_A} (placementInstanceId): ${fixedEnd}` },
    ]);
    expect((await store.get({ kind: 'volume', volumeId: 'data-01' }) as VolumeRecord).spec).toStrictEqual({ sizeGiB: 20, volumeType: 'gp3', placementInstanceId: INSTANCE_A });
  });

  it('is refused once, on placementInstanceId, for a volume placed in an AZ; a change of the same field keeps its own message', async () => {
    const { service } = await created({ sizeGiB: 20, volumeType: 'gp3', availabilityZone: 'us-east-1a' });
    expect((await problemOf(() => service.patchVolume('data-01', { placementInstanceId: INSTANCE_B }))).errors).toStrictEqual([
      { path: 'placementInstanceId', message: `the volume's placement is fixed when the volume is created, and it was placed in us-east-1a (availabilityZone): ${fixedEnd}` },
    ]);
    expect((await problemOf(() => service.patchVolume('data-01', { availabilityZone: 'us-east-1b' }))).errors).toStrictEqual([
      { path: 'availabilityZone', message: `is fixed when the volume is created: ${fixedEnd}` },
    ]);
  });
});
