/**
 * How the reconciler reads the attachment states EC2 reports: `detached` (listed for a while after
 * a detach) is no attachment, so an attached record EC2 shows so is looked at; `busy` (attached,
 * the instance using the device) is one, so an attach given up on that EC2 shows busy is looked at
 * as made after all; against the device a record holds, an attached record EC2 shows busy under
 * another device is looked at, as is an attach given up on that EC2 shows detached; an attachment
 * waiting for its volume in use is looked at when EC2 shows it attached or busy to its own instance.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord, VolumeRecord } from '../../lib/domain/records.js';
import type { ProviderAttachmentState, ProviderVolume } from '../../lib/engine/ports.js';
import { AZ, INSTANCE, newAttachment, newVolume, providerOver } from './engine-fixtures.js';
import { MINUTE, reconcilerWorld } from './reconciler-fixtures.js';

/** Volume record data-1 in use, its EC2 volume attached to INSTANCE as EC2 reports it (`shown`), and `attachment` its record for INSTANCE. */
async function world(shown: ProviderAttachmentState, attachment: (volume: VolumeRecord, at: string) => AttachmentRecord) {
  const asShown = (volume: ProviderVolume): ProviderVolume => ({ ...volume, attachments: volume.attachments.map((a) => ({ ...a, state: shown })) });
  const { clock, store, reconciler, ownedAndAttached } = reconcilerWorld({
    availabilityZone: AZ,
    instances: [INSTANCE],
    provider: (ebs) => providerOver(ebs, { describeVolumes: async (ids) => (await ebs.describeVolumes(ids)).map(asShown) }),
  });
  const { ebsVolumeId } = await ownedAndAttached('data-1', INSTANCE);
  const at = new Date(clock.now()).toISOString();
  const volume = newVolume('data-1', { ebsVolumeId, availabilityZone: AZ, status: { state: 'in-use', attempts: 0, updatedAt: at }, version: 0, createdAt: at });
  await store.create(volume);
  await store.create(attachment(volume, at));
  await clock.advance(10 * MINUTE);
  return { reconciler, ebsVolumeId };
}

describe('reconciler and the attachment states EC2 reports', () => {
  it('looks at an attached record whose attachment EC2 shows detached', async () => {
    const { reconciler, ebsVolumeId } = await world('detached', (volume, at) =>
      newAttachment('data-1', { device: '/dev/sdf', volumeCreatedAt: volume.createdAt, status: { state: 'attached', attempts: 0, updatedAt: at }, version: 0, createdAt: at }),
    );
    expect((await reconciler.run()).requeued).toContainEqual({ key: `attachment/data-1/${INSTANCE}`, reason: `EC2 shows ${ebsVolumeId} not attached to ${INSTANCE}` });
  });

  it('looks at an attach given up on that EC2 shows busy, as made after all', async () => {
    const { reconciler, ebsVolumeId } = await world('busy', (volume, at) =>
      newAttachment('data-1', {
        device: '/dev/sdf',
        volumeCreatedAt: volume.createdAt,
        status: { state: 'error', code: 'Timeout', message: 'the attach did not complete in time', attempts: 1, updatedAt: at },
        version: 0,
        createdAt: at,
      }),
    );
    expect((await reconciler.run()).requeued).toContainEqual({ key: `attachment/data-1/${INSTANCE}`, reason: `EC2 shows ${ebsVolumeId} attached to ${INSTANCE}, which the attachment gave up on` });
  });
});

describe('reconciler: a busy or detached attachment EC2 reports, against the device the record holds', () => {
  it('looks at an attached record whose attachment EC2 shows busy under another device', async () => {
    const { reconciler, ebsVolumeId } = await world('busy', (volume, at) =>
      newAttachment('data-1', { device: '/dev/sdg', volumeCreatedAt: volume.createdAt, status: { state: 'attached', attempts: 0, updatedAt: at }, version: 0, createdAt: at }),
    );
    expect((await reconciler.run()).requeued).toContainEqual({
      key: `attachment/data-1/${INSTANCE}`,
      reason: `EC2 shows ${ebsVolumeId} attached to ${INSTANCE} as /dev/sdf, the record says /dev/sdg`,
    });
  });

  it('looks at an attach given up on that EC2 shows detached: its status is to say the volume is not attached, the device kept', async () => {
    const { reconciler, ebsVolumeId } = await world('detached', (volume, at) =>
      newAttachment('data-1', {
        device: '/dev/sdf',
        volumeCreatedAt: volume.createdAt,
        status: { state: 'error', code: 'Timeout', message: 'the attach did not complete in time', attempts: 1, updatedAt: at },
        version: 0,
        createdAt: at,
      }),
    );
    expect((await reconciler.run()).requeued).toContainEqual({
      key: `attachment/data-1/${INSTANCE}`,
      reason: `EC2 shows ${ebsVolumeId} not attached to ${INSTANCE}; the attachment keeps device /dev/sdf`,
    });
  });
});

describe('reconciler, an attachment waiting for its volume in use', () => {
  it.each(['attached', 'busy'] as const)('is looked at when EC2 shows the volume %s to its own instance (attached outside, in the console)', async (shown) => {
    const { reconciler, ebsVolumeId } = await world(shown, (volume, at) =>
      newAttachment('data-1', { volumeCreatedAt: volume.createdAt, status: { state: 'pending', attempts: 0, updatedAt: at }, version: 0, createdAt: at }),
    );
    expect((await reconciler.run()).requeued).toContainEqual({
      key: `attachment/data-1/${INSTANCE}`,
      reason: `EC2 shows ${ebsVolumeId} attached to ${INSTANCE}, which the attachment waits to attach`,
    });
  });
});
