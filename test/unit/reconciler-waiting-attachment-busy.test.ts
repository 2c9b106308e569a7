/**
 * An attachment waiting for its single-attach volume, in use, is looked at when EC2 shows the
 * volume attached to the attachment's own instance (attached outside, in the console): EC2's
 * `busy` (attached, the instance using the device) is attached too, so such an attach is
 * recorded whichever of the two EC2 reports.
 */
import { describe, expect, it } from 'vitest';
import type { ProviderAttachmentState, ProviderVolume } from '../../lib/engine/ports.js';
import { AZ, INSTANCE, newAttachment, newVolume, providerOver } from './engine-fixtures.js';
import { MINUTE, reconcilerWorld } from './reconciler-fixtures.js';

/** Volume record data-1 in use, its EC2 volume attached outside to INSTANCE and reported `shown`; its attachment record for INSTANCE pending. */
async function waitingWhileShown(shown: ProviderAttachmentState) {
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
  await store.create(newAttachment('data-1', { volumeCreatedAt: volume.createdAt, status: { state: 'pending', attempts: 0, updatedAt: at }, version: 0, createdAt: at }));
  await clock.advance(10 * MINUTE);
  return { reconciler, ebsVolumeId };
}

describe('reconciler, an attachment waiting for its volume in use', () => {
  it.each(['attached', 'busy'] as const)('is looked at when EC2 shows the volume %s to its own instance', async (shown) => {
    const { reconciler, ebsVolumeId } = await waitingWhileShown(shown);
    expect((await reconciler.run()).requeued).toContainEqual({
      key: `attachment/data-1/${INSTANCE}`,
      reason: `EC2 shows ${ebsVolumeId} attached to ${INSTANCE}, which the attachment waits to attach`,
    });
  });
});
