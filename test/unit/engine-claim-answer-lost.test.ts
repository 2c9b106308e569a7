/**
 * The claim an operation takes before its EC2 call (a detach's, here), made by the table but its
 * answer lost: no call is made, the message is reported failed, and the claim is let go rather
 * than left to lapse, so the message delivered again acts at once, with one call.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord } from '../../lib/domain/records.js';
import { attachmentKey, harness, newAttachment, newVolume, settleAll } from './engine-fixtures.js';

const KEY = attachmentKey('data-1');

describe('a claim made by the table whose answer is lost', () => {
  it('makes no call, lets the claim go and fails its message; delivered again, the detach is made once', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await h.store.create(newAttachment('data-1'));
    await settleAll(h, 4);
    expect(await h.store.get(KEY)).toMatchObject({ status: { state: 'attached' } });
    await h.store.update<AttachmentRecord>(KEY, { life: 'dying' });
    h.changes.splice(0);
    h.queue.purge();
    const detachesBefore = h.ebs.calls.DetachVolume ?? 0;
    const claim = h.store.claim.bind(h.store);
    let lost = 0;
    h.store.claim = async (key, owner, now, leaseMs) => {
      const result = await claim(key, owner, now, leaseMs);
      if (lost++ === 0) {
        expect(result.ok).toBe(true);
        throw new Error('connection reset');
      }
      return result;
    };

    const batch = h.batchOf(h.op('detach', KEY));
    const { failedMessageIds } = await h.executor.run(batch);
    expect(failedMessageIds).toEqual([batch[0]!.messageId]);
    expect(h.ebs.calls.DetachVolume ?? 0).toBe(detachesBefore);
    expect((await h.store.get(KEY)) as AttachmentRecord).not.toHaveProperty('claim');

    const again = await h.executor.run(h.batchOf(h.op('detach', KEY)));
    expect(again.failedMessageIds).toEqual([]);
    expect(h.ebs.calls.DetachVolume ?? 0).toBe(detachesBefore + 1);
    expect(await h.store.get(KEY)).toMatchObject({ status: { state: 'detaching' } });
  });
});
