/**
 * An attach claims its record with the write before its AttachVolume. When the table makes that
 * write but its answer is lost (the write fails as far as the executor knows), no call is made,
 * the message is reported failed, and the claim the write took is let go rather than left to lapse:
 * the record's next message is not put off until the lease ends. Taken up as an attach whose call
 * may have been made, the volume is attached with one AttachVolume.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord } from '../../lib/domain/records.js';
import { attachmentKey, harness, newAttachment, newVolume, settleAll } from './engine-fixtures.js';

const KEY = attachmentKey('data-1');

describe("an attach whose claiming write is made but its answer lost", () => {
  it('makes no call, lets the claim go, fails its message, and the attach is made once after', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await settleAll(h, 3);
    await h.store.create(newAttachment('data-1'));
    h.changes.splice(0);
    h.queue.purge();
    const update = h.store.update.bind(h.store);
    let lost = 0;
    h.store.update = async (key, changes, condition) => {
      const written = await update(key, changes, condition);
      if (key.kind === 'attachment' && 'device' in changes && lost++ === 0) throw new Error('connection reset');
      return written;
    };

    const batch = h.batchOf(h.op('attach', KEY));
    const { failedMessageIds } = await h.executor.run(batch);
    expect(failedMessageIds).toEqual([batch[0]!.messageId]);
    expect(lost).toBe(1);
    expect(h.ebs.calls.AttachVolume ?? 0).toBe(0);
    // The write was made (its device and status stand), its claim let go.
    const left = (await h.store.get(KEY)) as AttachmentRecord;
    expect(left).toMatchObject({ device: '/dev/sdf', status: { state: 'attaching' } });
    expect(left).not.toHaveProperty('claim');

    // Delivered again (as Lambda does a failed message) well within the lease: taken up at once, as
    // an attach whose call may have been made. EC2 does not list it past the describe's grace, and it is attached afresh.
    const again = await h.executor.run(h.batchOf(h.op('attach', KEY)));
    expect(again.failedMessageIds).toEqual([]);
    expect(h.queued()).toEqual([{ op: 'check-attachment', key: 'data-1/i-0123456789abcdef0', delaySeconds: 1 }]);
    await settleAll(h, 20);
    expect(await h.store.get(KEY)).toMatchObject({ status: { state: 'attached' } });
    expect(h.ebs.calls.AttachVolume).toBe(1);
  });
});
