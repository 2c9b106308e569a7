/**
 * The write that precedes an EC2 call (a forced detach's, here), refused after the claim: no call is
 * made, and what follows depends on why. Changed by its client under our claim: the claim is let go
 * and the message sent again at once, since nothing else plans the record again once the claim goes.
 * Claimed by another invocation (the lease ran out): left to it, nothing sent to look again at once.
 * Failed for the table (not a condition): the claim is let go and the message reported failed, so
 * Lambda delivers it again, and that delivery (or any other message for the record) acts at once.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord, ProvisionerRecord } from '../../lib/domain/records.js';
import { Executor } from '../../lib/engine/executor.js';
import { ConditionFailedError } from '../../lib/engine/ports.js';
import { silentLog } from '../../lib/memory/log.js';
import { attachmentKey, harness, newAttachment, newVolume, settleAll } from './engine-fixtures.js';

const KEY = attachmentKey('data-1');

/**
 * An attached attachment set to a forced detach, whose write after the claim (the one before the
 * call) fails with what `refusal` makes of the record the claim wrote.
 */
async function forcedDetachRefusedBeforeCall(refusal: (claimed: ProvisionerRecord, now: number) => Error) {
  const h = harness();
  await h.store.create(newVolume('data-1'));
  await h.store.create(newAttachment('data-1'));
  await settleAll(h, 4);
  expect(await h.store.get(KEY)).toMatchObject({ status: { state: 'attached' } });
  await h.store.update<AttachmentRecord>(KEY, { life: 'dying', forceDetach: true });
  h.changes.splice(0);
  h.queue.purge();
  const update = h.store.update.bind(h.store);
  let updates = 0;
  h.store.update = async (key, changes, condition) => {
    const written = await update(key, changes, condition);
    if (++updates === 1) {
      expect(written.claim).toBeDefined();
      h.store.failNext('update', refusal(written, h.clock.now()));
    }
    return written;
  };
  return { h, detachesBefore: h.ebs.calls.DetachVolume ?? 0 };
}

describe('a forced detach whose write before the call is refused', () => {
  const executorOf = (h: Awaited<ReturnType<typeof forcedDetachRefusedBeforeCall>>['h']) =>
    new Executor({ store: h.store, queue: h.queue, provider: h.ebs, clock: h.clock, metrics: h.metrics, log: silentLog, config: { rateWaitMaxMs: 0 } });

  it('changed under its claim: makes no call, lets the claim go and looks again at once', async () => {
    const { h, detachesBefore } = await forcedDetachRefusedBeforeCall((claimed) => new ConditionFailedError('changed', claimed));
    await executorOf(h).run(h.batchOf(h.op('detach', KEY)));
    expect(h.ebs.calls.DetachVolume ?? 0).toBe(detachesBefore);
    expect((await h.store.get(KEY)) as AttachmentRecord).not.toHaveProperty('claim');
    expect(h.queued()).toEqual([{ op: 'detach', key: 'data-1/i-0123456789abcdef0', delaySeconds: 0 }]);
  });

  it('claimed by another invocation: makes no call and sends nothing to look again at once', async () => {
    const { h, detachesBefore } = await forcedDetachRefusedBeforeCall(
      (claimed, now) => new ConditionFailedError('claimed elsewhere', { ...claimed, claim: { owner: 'another-invocation', expiresAt: now + 180_000 } }),
    );
    await executorOf(h).run(h.batchOf(h.op('detach', KEY)));
    expect(h.ebs.calls.DetachVolume ?? 0).toBe(detachesBefore);
    expect(h.queued().filter((q) => q.delaySeconds === 0)).toEqual([]);
  });

  it('failed for the table: makes no call, lets the claim go and fails its message for redelivery, which then calls once', async () => {
    const { h, detachesBefore } = await forcedDetachRefusedBeforeCall(() => new Error('DynamoDB unavailable'));
    const batch = h.batchOf(h.op('detach', KEY));
    const { failedMessageIds } = await h.executor.run(batch);
    expect(h.ebs.calls.DetachVolume ?? 0).toBe(detachesBefore);
    expect(failedMessageIds).toEqual([batch[0]!.messageId]);
    expect((await h.store.get(KEY)) as AttachmentRecord).not.toHaveProperty('claim');

    // Delivered again well within the claim's lease: not put off until it ends, the forced call is made, once.
    const again = await h.executor.run(h.batchOf(h.op('detach', KEY)));
    expect(again.failedMessageIds).toEqual([]);
    expect(h.ebs.calls.DetachVolume ?? 0).toBe(detachesBefore + 1);
    expect(await h.store.get(KEY)).toMatchObject({ status: { state: 'detaching' }, forceDetachSentAt: expect.any(String) });
  });

  it('failed for the table, and so is letting go of the claim: the claim lapses with its lease, then the call is made once', async () => {
    const { h, detachesBefore } = await forcedDetachRefusedBeforeCall(() => new Error('DynamoDB unavailable'));
    h.store.failNext('release', new Error('DynamoDB unavailable'));
    const batch = h.batchOf(h.op('detach', KEY));
    const { failedMessageIds } = await h.executor.run(batch);
    expect(failedMessageIds).toEqual([batch[0]!.messageId]);
    const held = (await h.store.get(KEY)) as AttachmentRecord;
    expect(held.claim?.expiresAt).toBe(h.clock.now() + 180_000);

    // Delivered again within the lease: put off until it ends.
    await h.executor.run(h.batchOf(h.op('detach', KEY)));
    expect(h.ebs.calls.DetachVolume ?? 0).toBe(detachesBefore);
    expect(h.queued()).toEqual([{ op: 'detach', key: 'data-1/i-0123456789abcdef0', delaySeconds: 180 }]);
    await h.clock.advance(180_000);
    await h.drain();
    expect(h.ebs.calls.DetachVolume ?? 0).toBe(detachesBefore + 1);
  });
});
