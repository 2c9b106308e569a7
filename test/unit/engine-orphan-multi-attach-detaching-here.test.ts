/**
 * A dying attachment whose volume record was removed from the table detaches the EC2 volumes tagged
 * with its volume id that EC2 shows attached to its instance; one whose detach from that instance
 * EC2 already makes needs no call. A Multi-Attach volume still attached to another instance is no
 * reason for a call: only the attachment to this record's instance is this record's to detach.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord } from '../../lib/domain/records.js';
import { attachmentKey, harness, INSTANCE, newAttachment, newVolume, OTHER_INSTANCE, settleAll, volumeKey, volumeOf } from './engine-fixtures.js';

describe('a dying attachment of a removed volume record whose Multi-Attach volume is detaching from its instance and attached to another', () => {
  it('makes no DetachVolume, leaves the other instance attached, and stays detaching until EC2 shows its instance detached', async () => {
    const h = harness({ ebsTimings: { detach: 10 * 60_000 } });
    await h.store.create(newVolume('data-1', {}, { volumeType: 'io2', iops: 3000, multiAttach: true }));
    await h.store.create(newAttachment('data-1'));
    await h.store.create(newAttachment('data-1', { instanceId: OTHER_INSTANCE }));
    await settleAll(h);
    const { ebsVolumeId } = await volumeOf(h);
    expect(await h.store.get(attachmentKey('data-1'))).toMatchObject({ status: { state: 'attached' } });
    expect(await h.store.get(attachmentKey('data-1', OTHER_INSTANCE))).toMatchObject({ status: { state: 'attached' } });
    // Detached from INSTANCE in the console: EC2 takes ten minutes.
    await h.ebs.detachVolume({ ebsVolumeId: ebsVolumeId!, instanceId: INSTANCE });
    const detaches = h.ebs.calls.DetachVolume;
    await h.store.remove(volumeKey('data-1'));
    await h.watch();
    await h.store.update(attachmentKey('data-1'), { life: 'dying' });
    h.queue.purge();
    await h.executor.run(h.batchOf(h.op('detach', attachmentKey('data-1'))));

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
