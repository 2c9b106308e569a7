/**
 * Detaches of a removed volume record's attachments find its EC2 volumes by their tags: every
 * attachment of that volume id in the batch gets the search's answer, not only the last one, and
 * each detaches the volume from its own instance.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord } from '../../lib/domain/records.js';
import { attachmentKey, harness, INSTANCE, newAttachment, newVolume, OTHER_INSTANCE, settleAll, volumeKey } from './engine-fixtures.js';

describe('two detaches of one removed Multi-Attach volume record in a batch', () => {
  it('each detaches the volume found by its tags from its own instance', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1', {}, { multiAttach: true, volumeType: 'io2', iops: 3000 }));
    for (const instanceId of [INSTANCE, OTHER_INSTANCE]) await h.store.create(newAttachment('data-1', { instanceId }));
    await settleAll(h, 4);
    for (const instanceId of [INSTANCE, OTHER_INSTANCE]) expect(await h.store.get(attachmentKey('data-1', instanceId))).toMatchObject({ status: { state: 'attached' } });
    // The volume record removed from the table, then both attachments deleted.
    await h.store.remove(volumeKey('data-1'));
    for (const instanceId of [INSTANCE, OTHER_INSTANCE]) await h.store.update<AttachmentRecord>(attachmentKey('data-1', instanceId), { life: 'dying' });
    h.changes.splice(0);
    h.queue.purge();
    const detachesBefore = h.ebs.calls.DetachVolume ?? 0;

    await h.executor.run(h.batchOf(h.op('detach', attachmentKey('data-1', INSTANCE)), h.op('detach', attachmentKey('data-1', OTHER_INSTANCE))));

    expect(h.ebs.calls.DetachVolume ?? 0).toBe(detachesBefore + 2);
    for (const instanceId of [INSTANCE, OTHER_INSTANCE]) expect(await h.store.get(attachmentKey('data-1', instanceId))).toMatchObject({ status: { state: 'detaching' } });
  });
});
