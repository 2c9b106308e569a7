/**
 * A dying attachment whose volume record was removed from the table detaches the EC2 volumes
 * tagged with its volume id that EC2 shows attached to its instance. One EC2 already detaches
 * (a detach made outside the system, say) needs no call, and the attachment is detaching until
 * EC2 shows it detached: it is not removed while EC2 still holds the volume. A Multi-Attach volume
 * still attached to another instance is no reason for a call either: only the attachment to this
 * record's instance is this record's to detach.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord } from '../../lib/domain/records.js';
import { attachmentKey, harness, INSTANCE, newAttachment, newVolume, OTHER_INSTANCE, settleAll, volumeKey, volumeOf } from './engine-fixtures.js';

/**
 * Detaches data-1 from INSTANCE in the console (EC2 takes ten minutes), removes its volume record,
 * then runs the dying attachment's detach; returns the DetachVolume calls made before it.
 */
async function orphanDetachedWhileDetaching(h: ReturnType<typeof harness>, ebsVolumeId: string): Promise<number> {
  await h.ebs.detachVolume({ ebsVolumeId, instanceId: INSTANCE });
  const detaches = h.ebs.calls.DetachVolume;
  await h.store.remove(volumeKey('data-1'));
  await h.watch();
  await h.store.update(attachmentKey('data-1'), { life: 'dying' });
  h.queue.purge();
  await h.executor.run(h.batchOf(h.op('detach', attachmentKey('data-1'))));
  return detaches;
}

describe('a dying attachment of a removed volume record whose EC2 volume is already detaching', () => {
  it('makes no DetachVolume and stays detaching until EC2 shows the volume detached', async () => {
    const h = harness({ ebsTimings: { detach: 10 * 60_000 } });
    await h.store.create(newVolume('data-1'));
    await h.store.create(newAttachment('data-1'));
    await settleAll(h, 4);
    const { ebsVolumeId } = await volumeOf(h);
    expect(await h.store.get(attachmentKey('data-1'))).toMatchObject({ status: { state: 'attached' } });
    const detaches = await orphanDetachedWhileDetaching(h, ebsVolumeId!);

    expect(h.ebs.calls.DetachVolume).toBe(detaches);
    expect(h.ebs.volume(ebsVolumeId!)!.attachments).toMatchObject([{ instanceId: INSTANCE, state: 'detaching' }]);
    expect(((await h.store.get(attachmentKey('data-1'))) as AttachmentRecord).status.state).toBe('detaching');

    await h.settle(15 * 60_000, 10_000);
    expect(await h.store.get(attachmentKey('data-1'))).toBeUndefined();
    expect(h.ebs.volume(ebsVolumeId!)!.attachments).toEqual([]);
  });

  it('Multi-Attach, attached to another instance too: makes no DetachVolume, leaves the other instance attached, and stays detaching', async () => {
    const h = harness({ ebsTimings: { detach: 10 * 60_000 } });
    await h.store.create(newVolume('data-1', {}, { volumeType: 'io2', iops: 3000, multiAttach: true }));
    await h.store.create(newAttachment('data-1'));
    await h.store.create(newAttachment('data-1', { instanceId: OTHER_INSTANCE }));
    await settleAll(h);
    const { ebsVolumeId } = await volumeOf(h);
    expect(await h.store.get(attachmentKey('data-1'))).toMatchObject({ status: { state: 'attached' } });
    expect(await h.store.get(attachmentKey('data-1', OTHER_INSTANCE))).toMatchObject({ status: { state: 'attached' } });
    const detaches = await orphanDetachedWhileDetaching(h, ebsVolumeId!);

    expect(h.ebs.calls.DetachVolume).toBe(detaches);
    expect(h.ebs.volume(ebsVolumeId!)!.attachments).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ instanceId: INSTANCE, state: 'detaching' }),
        expect.objectContaining({ instanceId: OTHER_INSTANCE, state: 'attached' }),
      ]),
    );
    expect(((await h.store.get(attachmentKey('data-1'))) as AttachmentRecord).status.state).toBe('detaching');
  });
});
