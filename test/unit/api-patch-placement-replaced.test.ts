/** PATCH of a volume's placement while nothing is created: one placement replaces the other. */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { INSTANCE_A, serviceWorld } from './api-fixtures.js';

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
