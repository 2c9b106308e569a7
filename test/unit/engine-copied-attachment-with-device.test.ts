/**
 * An attachment of a volume record copied in the table (README, "Records copied in the table")
 * that carries a device, as one whose AttachVolume answer was lost does: the volume is another
 * record's, so the copy never attached it, and its attachment ends in error without attaching and
 * without a device of its own.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord, VolumeRecord } from '../../lib/domain/records.js';
import { attachmentKey, harness, newAttachment, newVolume, settleAll, volumeOf } from './engine-fixtures.js';

describe('a pending attachment with a device, of a copied volume record', () => {
  it('ends in error naming the record the volume belongs to, with no AttachVolume and no device left on it', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await settleAll(h);
    const original: VolumeRecord = await volumeOf(h, 'data-1');
    expect(original).toMatchObject({ status: { state: 'available' }, ebsVolumeId: expect.any(String) });
    h.store.putRaw({ ...original, volumeId: 'data-2' });
    h.store.putRaw(newAttachment('data-2', { device: '/dev/xvdf' }));
    await settleAll(h);

    expect(h.ebs.calls.AttachVolume).toBe(0);
    expect(h.ebs.volume(original.ebsVolumeId!)!.attachments).toEqual([]);
    const attachment = (await h.store.get(attachmentKey('data-2'))) as AttachmentRecord;
    expect(attachment).toMatchObject({ status: { state: 'error', code: 'VolumeOfAnotherRecord', message: expect.stringContaining('volume record data-1') } });
    expect(attachment).not.toHaveProperty('device');
  });
});
