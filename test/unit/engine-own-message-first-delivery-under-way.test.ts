/**
 * An operation's own message delivered for the first time (SQS's ApproximateReceiveCount 1) that
 * reaches its record once another message started that operation, past the first progress check's
 * time, is only a look (`checkNotDue`): at most one describe, no call, and no check of its own, so
 * the operation keeps the one chain of checks it has. Delivered again, it may be the only one to
 * make that chain (its invocation may have started the operation and failed before sending the
 * first check): its check goes on as one of the chain.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord } from '../../lib/domain/records.js';
import { CHECK_OPERATIONS } from '../../lib/engine/planner.js';
import type { OperationMessage } from '../../lib/engine/ports.js';
import { attachmentKey, harness, iopsModification, newAttachment, newVolume, volumeKey, volumeOf } from './engine-fixtures.js';

/** Check messages waiting in the queue. */
function checksQueued(h: ReturnType<typeof harness>): OperationMessage[] {
  return h.queue
    .pending()
    .map((pending) => pending.message)
    .filter((message) => CHECK_OPERATIONS.has(message.op));
}

/** data-1 modifying for hours, ten minutes in: its chain's next check queued. */
async function modifyingPastFirstCheck() {
  const h = await iopsModification({ modify: 3_600_000, optimize: 3_600_000 });
  await h.clock.advance(600_000);
  const started = (await volumeOf(h)).status.operationStartedAt!;
  expect(checksQueued(h)).toEqual([expect.objectContaining({ op: 'check-volume', chainOf: started })]);
  return { h, started };
}

/** data-1 attaching to its instance (EC2 taking a minute), 30 s after the attach: past its first check. */
async function attachingPastFirstCheck() {
  const h = harness({ ebsTimings: { attach: 60_000 } });
  await h.store.create(newVolume('data-1'));
  await h.executor.run(h.batchOf(h.op('create-volume', volumeKey('data-1'))));
  await h.settle(10_000);
  expect((await volumeOf(h)).status.state).toBe('available');
  await h.store.create(newAttachment('data-1'));
  await h.executor.run(h.batchOf(h.op('attach', attachmentKey('data-1'))));
  const attachment = (await h.store.get(attachmentKey('data-1'))) as AttachmentRecord;
  expect(attachment.status.state).toBe('attaching');
  await h.clock.advance(30_000);
  // The attach's chain: one check for the attachment.
  const chain = checksQueued(h).filter((message) => message.key.kind === 'attachment');
  expect(chain).toEqual([expect.objectContaining({ op: 'check-attachment', chainOf: attachment.status.operationStartedAt })]);
  return { h, started: attachment.status.operationStartedAt!, chain };
}

describe("an operation's own message delivered for the first time, the operation under way past its first check", () => {
  it('a modification: one DescribeVolumes as a look, no ModifyVolume, no check sent beside the chain', async () => {
    const { h } = await modifyingPastFirstCheck();
    const before = checksQueued(h);
    const describes = h.ebs.calls.DescribeVolumes;
    const modifies = h.ebs.calls.ModifyVolume;

    const own: OperationMessage = { op: 'modify-volume', key: volumeKey('data-1'), reason: 'spec changed' };
    expect((await h.executor.run([{ messageId: 'own', message: own, receiveCount: 1 }])).failedMessageIds).toEqual([]);

    expect(h.ebs.calls.DescribeVolumes - describes).toBeLessThanOrEqual(1);
    expect(h.ebs.calls.ModifyVolume).toBe(modifies);
    expect(checksQueued(h)).toEqual(before);
    expect((await volumeOf(h)).status.state).toBe('modifying');
  });

  it('an attach: no AttachVolume and no second chain of checks for the attachment', async () => {
    const { h, chain } = await attachingPastFirstCheck();
    const describes = h.ebs.calls.DescribeVolumes;

    const own: OperationMessage = { op: 'attach', key: attachmentKey('data-1'), reason: 'attachment changed' };
    expect((await h.executor.run([{ messageId: 'own', message: own, receiveCount: 1 }])).failedMessageIds).toEqual([]);

    expect(h.ebs.calls.DescribeVolumes - describes).toBeLessThanOrEqual(1);
    expect(h.ebs.calls.AttachVolume).toBe(1);
    expect(checksQueued(h).filter((message) => message.key.kind === 'attachment')).toEqual(chain);
    expect(((await h.store.get(attachmentKey('data-1'))) as AttachmentRecord).status.state).toBe('attaching');
  });

  it('delivered again, the same message checks and sends its check as one of the chain', async () => {
    const { h, started } = await modifyingPastFirstCheck();
    const before = checksQueued(h);

    const own: OperationMessage = { op: 'modify-volume', key: volumeKey('data-1'), reason: 'spec changed' };
    expect((await h.executor.run([{ messageId: 'own', message: own, receiveCount: 2 }])).failedMessageIds).toEqual([]);

    expect(checksQueued(h)).toEqual([...before, expect.objectContaining({ op: 'check-volume', chainOf: started })]);
  });
});
