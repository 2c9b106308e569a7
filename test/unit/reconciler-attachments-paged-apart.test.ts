/**
 * A pass compares with EC2 the volumes of the page's attachments that EC2 may hold attached (an
 * attach given up on that took after all, a single-attach volume waited for that was attached
 * outside to the attachment's instance), also when the volume record itself is on another page
 * (a volume's attachments sort before it, so a page can end between them).
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord, VolumeRecord } from '../../lib/domain/records.js';
import { AZ, INSTANCE } from './engine-fixtures.js';
import { MINUTE, reconcilerWorld } from './reconciler-fixtures.js';

/** Volume record data-1, in use, of an EC2 volume attached outside the system to INSTANCE; `attachment` its record for INSTANCE; scanned one record a page. */
async function attachedOutside(attachment: (volume: VolumeRecord, at: string) => AttachmentRecord) {
  const { clock, store, reconciler, ownedAndAttached } = reconcilerWorld({ availabilityZone: AZ, instances: [INSTANCE], pageSize: 1 });
  const made = await ownedAndAttached('data-1', INSTANCE);
  const at = new Date(clock.now()).toISOString();
  const volume: VolumeRecord = {
    kind: 'volume',
    volumeId: 'data-1',
    spec: { sizeGiB: 10, volumeType: 'gp3', availabilityZone: AZ },
    life: 'alive',
    generation: 1,
    ebsVolumeId: made.ebsVolumeId,
    availabilityZone: AZ,
    status: { state: 'in-use', attempts: 0, updatedAt: at },
    version: 0,
    createdAt: at,
  };
  await store.create(volume);
  await store.create(attachment(volume, at));
  await clock.advance(10 * MINUTE);
  return { reconciler, ebsVolumeId: made.ebsVolumeId };
}

describe('reconciler, an attachment on a page without its volume record', () => {
  it('whose attach was given up on is looked at once EC2 shows it attached after all', async () => {
    const { reconciler, ebsVolumeId } = await attachedOutside((volume, at) => ({
      kind: 'attachment',
      volumeId: 'data-1',
      instanceId: INSTANCE,
      life: 'alive',
      device: '/dev/sdf',
      volumeCreatedAt: volume.createdAt,
      status: { state: 'error', code: 'Timeout', message: 'the attach did not complete in time', attempts: 1, updatedAt: at },
      version: 0,
      createdAt: at,
    }));
    const report = await reconciler.run();
    expect(report.scanned).toBe(2);
    expect(report.requeued).toContainEqual({ key: `attachment/data-1/${INSTANCE}`, reason: `EC2 shows ${ebsVolumeId} attached to ${INSTANCE}, which the attachment gave up on` });
  });

  it('that waits for its single-attach volume in use is looked at once EC2 shows the volume attached to its own instance', async () => {
    const { reconciler, ebsVolumeId } = await attachedOutside((_volume, at) => ({
      kind: 'attachment',
      volumeId: 'data-1',
      instanceId: INSTANCE,
      life: 'alive',
      status: { state: 'pending', message: 'waiting for volume data-1 to be detached from its other instance', attempts: 0, updatedAt: at },
      version: 0,
      createdAt: at,
    }));
    const report = await reconciler.run();
    expect(report.scanned).toBe(2);
    expect(report.requeued).toContainEqual({ key: `attachment/data-1/${INSTANCE}`, reason: `EC2 shows ${ebsVolumeId} attached to ${INSTANCE}, which the attachment waits to attach` });
  });
});
