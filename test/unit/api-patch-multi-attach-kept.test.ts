/**
 * Only a PATCH that turns Multi-Attach off is refused while the volume has attachments to more than
 * one instance (docs/api.md): any other change to such a volume is made as for any volume.
 */
import { describe, expect, it } from 'vitest';
import { INSTANCE_A, INSTANCE_B, serviceWorld } from './api-fixtures.js';

describe('PATCH of a Multi-Attach volume attached to two instances', () => {
  it('grows it, raises its IOPS or keeps multiAttach: true, bumping the generation each time', async () => {
    const { service } = serviceWorld();
    await service.createVolume({ volumeId: 'shared', spec: { sizeGiB: 100, volumeType: 'io2', iops: 1000, multiAttach: true, availabilityZone: 'us-east-1a' } });
    await service.putAttachment('shared', INSTANCE_A, {});
    await service.putAttachment('shared', INSTANCE_B, {});

    const grown = await service.patchVolume('shared', { sizeGiB: 200 });
    expect(grown.spec).toMatchObject({ sizeGiB: 200, multiAttach: true });
    expect(grown.generation).toBe(2);

    const faster = await service.patchVolume('shared', { iops: 2000, multiAttach: true });
    expect(faster.spec).toMatchObject({ sizeGiB: 200, iops: 2000, multiAttach: true });
    expect(faster.generation).toBe(3);
    expect(faster.attachments.map((a) => a.instanceId).sort()).toEqual([INSTANCE_A, INSTANCE_B].sort());
  });
});
