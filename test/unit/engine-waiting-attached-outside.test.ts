/**
 * A waiting attachment whose single-attach volume someone attaches in the console to the
 * attachment's own instance: the volume goes in use, and no other attachment record holds it. The
 * attachment must look whether the volume is attached here (one DescribeVolumes) and record it,
 * not wait for a detach "from its other instance" that no one will make; deleted then, it detaches
 * the volume, whose delete can then go through.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { INSTANCE, OTHER_INSTANCE, attachmentKey, data1Created, harness, newAttachment, volumeKey, volumeOf } from './engine-fixtures.js';

/** Volume data-1 available; an attachment to `instanceId` that waited while the volume was being created, planned then; every change seen by the watcher. */
async function waitingAttachment(instanceId = INSTANCE): Promise<ReturnType<typeof harness>> {
  const h = harness();
  await data1Created(h);
  expect((await volumeOf(h)).status.state).toBe('available');
  await h.store.create(
    newAttachment('data-1', {
      instanceId,
      status: { state: 'pending', attempts: 0, updatedAt: new Date(h.clock.now()).toISOString(), message: 'waiting for volume data-1 to become available' },
    }),
  );
  // Its insert was planned while the volume was still being created.
  h.changes.splice(0);
  return h;
}

/** Someone attaches data-1's EC2 volume to `instanceId` in the console; a check of the volume (the reconciler's, say) writes it in use. */
async function attachedInConsole(h: ReturnType<typeof harness>, instanceId: string): Promise<void> {
  const { ebsVolumeId } = await volumeOf(h);
  await h.ebs.attachVolume({ ebsVolumeId: ebsVolumeId!, instanceId, device: '/dev/sdz' });
  await h.clock.advance(10_000);
  await h.executor.run(h.batchOf(h.op('check-volume', volumeKey('data-1'))));
  expect((await volumeOf(h)).status.state).toBe('in-use');
}

describe('a waiting attachment whose volume is attached outside the system', () => {
  it('to its own instance: the volume going in use makes the attachment look, and it is recorded attached with the device EC2 holds', async () => {
    const h = await waitingAttachment();
    await attachedInConsole(h, INSTANCE);
    // The stream brings the volume's change (available to in use) to the watcher.
    await h.watch();
    expect(h.queued()).toContainEqual({ op: 'check-attachment', key: `data-1/${INSTANCE}`, delaySeconds: 0 });
    await h.settle(10_000);
    await h.watch();
    expect(await h.store.get(attachmentKey('data-1'))).toMatchObject({ status: { state: 'attached' }, device: '/dev/sdz' });
    expect(h.ebs.calls.AttachVolume).toBe(1);
  });

  it('to its own instance, then the attachment and the volume deleted: the volume is detached and deleted', async () => {
    const h = await waitingAttachment();
    await attachedInConsole(h, INSTANCE);
    await h.watch();
    await h.settle(10_000);
    await h.watch();
    const { ebsVolumeId } = await volumeOf(h);
    await h.store.update(attachmentKey('data-1'), { life: 'dying' });
    await h.store.update(volumeKey('data-1'), { life: 'dying' });
    for (let round = 0; round < 6; round++) {
      await h.watch();
      await h.settle(10_000);
    }
    expect(await h.store.get(attachmentKey('data-1'))).toBeUndefined();
    expect(await h.store.get(volumeKey('data-1'))).toBeUndefined();
    expect(h.ebs.volume(ebsVolumeId!)).toBeUndefined();
    expect(h.ebs.calls.DetachVolume).toBe(1);
    expect(h.ebs.calls.DeleteVolume).toBe(1);
  });

  it('to another instance: nothing is attached here, and the attachment waits for the detach, saying so', async () => {
    const h = await waitingAttachment();
    await attachedInConsole(h, OTHER_INSTANCE);
    await h.watch();
    await h.settle(10_000);
    await h.watch();
    expect(await h.store.get(attachmentKey('data-1'))).toMatchObject({
      status: { state: 'pending', message: 'waiting for volume data-1 to be detached from its other instance' },
    });
    expect(await h.store.get(attachmentKey('data-1'))).not.toHaveProperty('device');
    expect(h.ebs.calls.AttachVolume).toBe(1);
    const volume = (await h.store.get(volumeKey('data-1'))) as VolumeRecord;
    expect(volume.status.state).toBe('in-use');
  });
});
