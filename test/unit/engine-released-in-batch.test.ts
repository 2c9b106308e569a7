/**
 * A volume's check takes up in the same invocation the attachments waiting for it (or, delivered
 * again, those its release may have left with nothing queued). An attachment whose own message is
 * in the batch is acted on once all the same: one look at it when its own check is there, one
 * AttachVolume, one chain of checks.
 */
import { describe, expect, it } from 'vitest';
import { attachmentKey, harness, newAttachment, newVolume, volumeKey, volumeOf } from './engine-fixtures.js';

describe('executor: a volume check and its attachment\'s own message in one batch', () => {
  it("a check delivered again of an available volume, beside its attaching attachment's own check: one look at the attachment, one chain of checks", async () => {
    const h = harness({ ebsTimings: { attach: 60_000 } });
    await h.store.create(newVolume('data-1'));
    await h.watch();
    await h.settle(10_000);
    await h.store.create(newAttachment('data-1'));
    await h.executor.run(h.batchOf(h.op('attach', attachmentKey('data-1'))));
    expect(await h.store.get(attachmentKey('data-1'))).toMatchObject({ status: { state: 'attaching' } });
    const [pending] = h.queue.pending().filter((p) => p.message.op === 'check-attachment');
    await h.clock.advance(pending!.visibleAt - h.clock.now());
    const received = h.queue.receive(100);
    for (const r of received) h.queue.delete(r.receiptHandle);
    const check = received.find((r) => r.message.op === 'check-attachment');

    // EC2 still attaching when both come: the attachment's check goes on with its chain.
    const batch = [
      { messageId: 'volume', message: h.op('check-volume', volumeKey('data-1')), receiveCount: 2 },
      { messageId: 'attachment', message: check!.message, receiveCount: 1 },
    ];
    const describes = h.ebs.calls.DescribeVolumes;
    expect((await h.executor.run(batch)).failedMessageIds).toEqual([]);
    expect(h.ebs.calls.DescribeVolumes - describes).toBe(1);
    expect(await h.store.get(attachmentKey('data-1'))).toMatchObject({ status: { state: 'attaching' } });
    expect(h.queued().filter((q) => q.op === 'check-attachment')).toHaveLength(1);

    await h.settle(90_000);
    expect(await h.store.get(attachmentKey('data-1'))).toMatchObject({ status: { state: 'attached' } });
    expect(h.ebs.calls.AttachVolume).toBe(1);
  });

  it('the check that sees the volume become available, beside the attach of its waiting attachment: attached once', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await h.store.create(newAttachment('data-1'));
    await h.watch();
    await h.drain();
    expect((await volumeOf(h)).status.state).toBe('creating');
    h.queue.receive(100).forEach((r) => h.queue.delete(r.receiptHandle));
    h.changes.length = 0;

    await h.clock.advance(5_000);
    expect((await h.executor.run(h.batchOf(h.op('check-volume', volumeKey('data-1')), h.op('attach', attachmentKey('data-1'))))).failedMessageIds).toEqual([]);
    expect((await volumeOf(h)).status.state).toBe('available');

    await h.watch();
    await h.settle(30_000);
    expect(await h.store.get(attachmentKey('data-1'))).toMatchObject({ status: { state: 'attached' } });
    expect(h.ebs.calls.AttachVolume).toBe(1);
  });
});
