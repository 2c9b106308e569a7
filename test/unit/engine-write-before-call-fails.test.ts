/**
 * The write before an EC2 call failing for the table (not a condition) makes no call, and the
 * message is reported failed, so Lambda delivers it again.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord } from '../../lib/domain/records.js';
import { attachmentKey, harness, newAttachment, newVolume, settleAll } from './engine-fixtures.js';

const KEY = attachmentKey('data-1');

describe('a forced detach whose write before the call fails', () => {
  it('makes no call and fails its message for redelivery', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await h.store.create(newAttachment('data-1'));
    await settleAll(h, 4);
    expect(await h.store.get(KEY)).toMatchObject({ status: { state: 'attached' } });
    await h.store.update<AttachmentRecord>(KEY, { life: 'dying', forceDetach: true });
    h.changes.splice(0);
    h.queue.purge();
    // The claim is written; the write after it, the one before the call, fails.
    const update = h.store.update.bind(h.store);
    let updates = 0;
    h.store.update = async (key, changes, condition) => {
      const written = await update(key, changes, condition);
      if (++updates === 1) h.store.failNext('update', new Error('DynamoDB unavailable'));
      return written;
    };
    const detachesBefore = h.ebs.calls.DetachVolume ?? 0;
    const batch = h.batchOf(h.op('detach', KEY));

    const { failedMessageIds } = await h.executor.run(batch);

    expect(h.ebs.calls.DetachVolume ?? 0).toBe(detachesBefore);
    expect(failedMessageIds).toEqual([batch[0]!.messageId]);
  });
});
