/**
 * Attachments a check releases when it sees their volume become available are attached in the
 * same invocation, with no message of their own: when the follow-up of such an attachment (the
 * attach's first check, the retry of a failed attempt) cannot be sent, the message that carried
 * the volume is reported failed, and delivered again it takes the attachment up where it was left,
 * so nothing waits for the reconciler.
 */
import { describe, expect, it, vi } from 'vitest';
import { ProviderError, type OperationMessage, type QueuedOperation } from '../../lib/engine/ports.js';
import { QUEUE } from '../../lib/settings.js';
import { harness, newAttachment, newVolume, volumeKey, volumeOf, attachmentOf } from './engine-fixtures.js';

/** The volume created in EC2 (its check not made yet), with an attachment waiting for it. */
async function volumeBeingCreated(): Promise<ReturnType<typeof harness>> {
  const h = harness();
  await h.store.create(newVolume('data-1'));
  await h.store.create(newAttachment('data-1'));
  await h.executor.run(h.batchOf(h.op('create-volume', volumeKey('data-1'))));
  await h.clock.advance(10_000);
  return h;
}

/** Sends to the queue fail for every batch holding a message of the attachment, once. */
function attachmentSendsFail(h: ReturnType<typeof harness>): void {
  const send = h.queue.send.bind(h.queue);
  let failed = false;
  vi.spyOn(h.queue, 'send').mockImplementation(async (operations: QueuedOperation[]) => {
    if (!failed && operations.some((operation) => operation.message.key.kind === 'attachment')) {
      failed = true;
      throw new Error('SQS unavailable');
    }
    return send(operations);
  });
}

describe('executor: attachments released by their volume whose follow-up cannot be sent', () => {
  it('an attach made whose first check is lost: the volume message comes back and its second delivery carries the attach on', async () => {
    const h = await volumeBeingCreated();
    attachmentSendsFail(h);
    const check: OperationMessage = { op: 'check-volume', key: volumeKey('data-1') };
    const { failedMessageIds } = await h.executor.run([{ messageId: 'volume-check', message: check, receiveCount: 1 }]);
    expect((await volumeOf(h)).status.state).toBe('available');
    expect((await attachmentOf(h)).status.state).toBe('attaching');
    expect(h.ebs.calls.AttachVolume).toBe(1);
    // Nothing queued brings the attachment back: only the failed volume message can.
    expect(h.queue.pending().filter((p) => p.message.key.kind === 'attachment')).toEqual([]);
    expect(failedMessageIds).toEqual(['volume-check']);

    await h.clock.advance(QUEUE.visibilityTimeoutSeconds * 1000);
    expect((await h.executor.run([{ messageId: 'volume-check', message: check, receiveCount: 2 }])).failedMessageIds).toEqual([]);
    // Its check, made by the second delivery, finds it attached.
    expect((await attachmentOf(h)).status.state).toBe('attached');
    await h.settle(60_000);
    expect((await attachmentOf(h)).status.state).toBe('attached');
    expect(h.ebs.calls.AttachVolume).toBe(1);
  });

  it('a failed attach whose retry is lost: the volume message comes back and its second delivery makes the retry', async () => {
    const h = await volumeBeingCreated();
    attachmentSendsFail(h);
    h.ebs.failNext('AttachVolume', new ProviderError('transient', 'InternalError', 'EC2 had an internal error'));
    const check: OperationMessage = { op: 'check-volume', key: volumeKey('data-1') };
    const { failedMessageIds } = await h.executor.run([{ messageId: 'volume-check', message: check, receiveCount: 1 }]);
    const failed = await attachmentOf(h);
    expect(failed.status).toMatchObject({ state: 'pending', code: 'InternalError', attempts: 1 });
    expect(h.queue.pending().filter((p) => p.message.key.kind === 'attachment')).toEqual([]);
    expect(failedMessageIds).toEqual(['volume-check']);

    await h.clock.advance(QUEUE.visibilityTimeoutSeconds * 1000);
    expect(Date.parse(failed.status.nextAttemptAt!)).toBeLessThanOrEqual(h.clock.now());
    await h.executor.run([{ messageId: 'volume-check', message: check, receiveCount: 2 }]);
    await h.settle(60_000);
    expect((await attachmentOf(h)).status.state).toBe('attached');
    expect(h.ebs.calls.AttachVolume).toBe(2);
  });

  it('delivered again before the retry of a failed attach is due: the retry (first a look whether the attach took) is queued for its time, not made early', async () => {
    const h = await volumeBeingCreated();
    attachmentSendsFail(h);
    h.ebs.failNext('AttachVolume', new ProviderError('transient', 'InternalError', 'EC2 had an internal error'));
    const check: OperationMessage = { op: 'check-volume', key: volumeKey('data-1') };
    expect((await h.executor.run([{ messageId: 'volume-check', message: check, receiveCount: 1 }])).failedMessageIds).toEqual(['volume-check']);
    const failed = await attachmentOf(h);
    const dueAt = Date.parse(failed.status.nextAttemptAt!);
    expect(dueAt).toBeGreaterThan(h.clock.now());

    expect((await h.executor.run([{ messageId: 'volume-check', message: check, receiveCount: 2 }])).failedMessageIds).toEqual([]);
    expect(h.ebs.calls.AttachVolume).toBe(1);
    const retries = h.queue.pending().filter((p) => p.message.key.kind === 'attachment');
    expect(retries.map((p) => ({ op: p.message.op, visibleAt: p.visibleAt }))).toEqual([{ op: 'check-attachment', visibleAt: dueAt }]);

    await h.settle(60_000);
    expect((await attachmentOf(h)).status.state).toBe('attached');
    expect(h.ebs.calls.AttachVolume).toBe(2);
  });
});
