/**
 * An attached attachment whose volume record has forgotten its vanished EC2 volume (its own check
 * found it gone): the attachment's check finds nothing attached and goes back to pending, and asks
 * no check of the volume record, which holds no EC2 volume to look at (only a volume record that
 * still holds the id learns from its own check that it is gone).
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord, VolumeRecord } from '../../lib/domain/records.js';
import { attachmentKey, harness, volumeKey, volumeOf, attachData1 } from './engine-fixtures.js';

describe('executor: an attached attachment whose volume record forgot its vanished volume', () => {
  it('goes back to pending without a check of the volume record', async () => {
    const h = harness();
    await attachData1(h);
    expect(((await h.store.get(attachmentKey('data-1'))) as AttachmentRecord).status.state).toBe('attached');
    const ebsVolumeId = (await volumeOf(h)).ebsVolumeId!;

    h.ebs.deleteBehindBack(ebsVolumeId);
    await h.executor.run(h.batchOf(h.op('check-volume', volumeKey('data-1'))));
    const forgotten = (await h.store.get(volumeKey('data-1'))) as VolumeRecord;
    expect(forgotten.ebsVolumeId).toBeUndefined();
    h.queue.receive(100).forEach((r) => h.queue.delete(r.receiptHandle));

    await h.clock.advance(10 * 60_000);
    await h.executor.run(h.batchOf(h.op('check-attachment', attachmentKey('data-1'))));
    expect(((await h.store.get(attachmentKey('data-1'))) as AttachmentRecord).status.state).toBe('pending');
    expect(h.queued().filter((m) => m.op === 'check-volume')).toEqual([]);
  });
});
