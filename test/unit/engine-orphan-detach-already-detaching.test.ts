/**
 * A dying attachment whose volume record was removed from the table detaches the EC2 volumes
 * tagged with its volume id that EC2 shows attached to its instance. One EC2 already detaches
 * (a detach made outside the system, say) needs no call, and the attachment is detaching until
 * EC2 shows it detached: it is not removed while EC2 still holds the volume.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord } from '../../lib/domain/records.js';
import { attachmentKey, harness, INSTANCE, newAttachment, newVolume, settleAll, volumeKey, volumeOf } from './engine-fixtures.js';

describe('a dying attachment of a removed volume record whose EC2 volume is already detaching', () => {
  it('makes no DetachVolume and stays detaching until EC2 shows the volume detached', async () => {
    const h = harness({ ebsTimings: { detach: 10 * 60_000 } });
    await h.store.create(newVolume('data-1'));
    await h.store.create(newAttachment('data-1'));
    await settleAll(h, 4);
    const { ebsVolumeId } = await volumeOf(h);
    expect(await h.store.get(attachmentKey('data-1'))).toMatchObject({ status: { state: 'attached' } });
    // Detached in the console: EC2 takes ten minutes.
    await h.ebs.detachVolume({ ebsVolumeId: ebsVolumeId!, instanceId: INSTANCE });
    const detaches = h.ebs.calls.DetachVolume;
    await h.store.remove(volumeKey('data-1'));
    await h.watch();
    await h.store.update(attachmentKey('data-1'), { life: 'dying' });
    h.queue.purge();
    await h.executor.run(h.batchOf(h.op('detach', attachmentKey('data-1'))));

    expect(h.ebs.calls.DetachVolume).toBe(detaches);
    expect(h.ebs.volume(ebsVolumeId!)!.attachments).toMatchObject([{ instanceId: INSTANCE, state: 'detaching' }]);
    expect(((await h.store.get(attachmentKey('data-1'))) as AttachmentRecord).status.state).toBe('detaching');

    await h.settle(15 * 60_000, 10_000);
    expect(await h.store.get(attachmentKey('data-1'))).toBeUndefined();
    expect(h.ebs.volume(ebsVolumeId!)!.attachments).toEqual([]);
  });
});
