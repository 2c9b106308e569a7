/**
 * An attachment record that is not valid stands in the way of another attachment only on a volume
 * that is not multi-attach (docs/api.md, "Records written into the table"): a Multi-Attach volume
 * takes an attachment to another instance beside it. Such a record counts toward the 16 instances
 * EBS attaches a Multi-Attach volume to, as it may still hold the volume.
 */
import { describe, expect, it } from 'vitest';
import { INSTANCE_A, INSTANCE_B, problemOf, serviceWorld } from './api-fixtures.js';

describe('PUT attachment of a Multi-Attach volume beside an attachment record that is not valid', () => {
  it('writes the attachment to the other instance (201)', async () => {
    const { store, service } = serviceWorld();
    await service.createVolume({ volumeId: 'shared', spec: { sizeGiB: 100, volumeType: 'io2', iops: 1000, multiAttach: true, availabilityZone: 'us-east-1a' } });
    store.putRaw({ kind: 'attachment', volumeId: 'shared', instanceId: INSTANCE_A, life: 'sleeping', generation: 1 });

    const answer = await service.putAttachment('shared', INSTANCE_B, {});
    expect(answer.created).toBe(true);
    expect(answer.value).toMatchObject({ volumeId: 'shared', instanceId: INSTANCE_B, generation: 1 });
    expect((await store.attachmentsOfVolume('shared')).map((a) => a.instanceId).sort()).toEqual([INSTANCE_A, INSTANCE_B].sort());
  });

  it('counts it toward the 16 instances: 15 valid attachments beside it are written, a 16th is refused naming it', async () => {
    const { store, service } = serviceWorld();
    await service.createVolume({ volumeId: 'shared', spec: { sizeGiB: 100, volumeType: 'io2', iops: 1000, multiAttach: true, availabilityZone: 'us-east-1a' } });
    store.putRaw({ kind: 'attachment', volumeId: 'shared', instanceId: INSTANCE_A, life: 'sleeping', generation: 1 });
    const instances = Array.from({ length: 16 }, (_, i) => `i-${(i + 1).toString(16).padStart(17, '0')}`);

    for (const instanceId of instances.slice(0, 15)) expect((await service.putAttachment('shared', instanceId, {})).created).toBe(true);
    const problem = await problemOf(() => service.putAttachment('shared', instances[15]!, {}));
    expect(problem.status).toBe(409);
    expect(problem.detail).toBe(
      'volume shared already has attachments to 16 instances (1 of them a record not valid, which may still be attached: put it right in the table or remove it), the most EBS attaches a Multi-Attach volume to; detach it from one first',
    );
    expect((await store.attachmentsOfVolume('shared')).length).toBe(16);
  });

  it('names how many of them are not valid when several are', async () => {
    const { store, service } = serviceWorld();
    await service.createVolume({ volumeId: 'shared', spec: { sizeGiB: 100, volumeType: 'io2', iops: 1000, multiAttach: true, availabilityZone: 'us-east-1a' } });
    const instances = Array.from({ length: 17 }, (_, i) => `i-${(i + 1).toString(16).padStart(17, '0')}`);
    for (const instanceId of instances.slice(0, 2)) store.putRaw({ kind: 'attachment', volumeId: 'shared', instanceId, life: 'sleeping', generation: 1 });

    for (const instanceId of instances.slice(2, 16)) expect((await service.putAttachment('shared', instanceId, {})).created).toBe(true);
    const problem = await problemOf(() => service.putAttachment('shared', instances[16]!, {}));
    expect(problem.status).toBe(409);
    expect(problem.detail).toContain('already has attachments to 16 instances (2 of them records not valid, which may still be attached: put them right in the table or remove them)');
  });
});
