/**
 * A check of a volume that reads it available both before and after takes up its attaching
 * attachments only when its message is delivered again (the release that left them may have lost
 * their follow-up with that very message); delivered for the first time, it leaves them to their
 * own checks.
 */
import { describe, expect, it, vi } from 'vitest';
import type { OperationMessage, QueuedOperation } from '../../lib/engine/ports.js';
import { attachmentKey, harness, newAttachment, newVolume, volumeKey } from './engine-fixtures.js';

/** An attach made by the release of its volume, whose first check was never queued. */
async function attachingWithoutCheck(): Promise<ReturnType<typeof harness>> {
  const h = harness();
  await h.store.create(newVolume('data-1'));
  await h.store.create(newAttachment('data-1'));
  await h.executor.run(h.batchOf(h.op('create-volume', volumeKey('data-1'))));
  await h.clock.advance(10_000);
  const send = h.queue.send.bind(h.queue);
  vi.spyOn(h.queue, 'send').mockImplementation(async (operations: QueuedOperation[]) => {
    if (operations.some((operation) => operation.message.key.kind === 'attachment')) throw new Error('SQS unavailable');
    return send(operations);
  });
  await h.executor.run([{ messageId: 'first', message: { op: 'check-volume', key: volumeKey('data-1') }, receiveCount: 1 }]);
  expect((await h.store.get(attachmentKey('data-1')))!.status.state).toBe('attaching');
  vi.mocked(h.queue.send).mockRestore();
  await h.clock.advance(30_000);
  return h;
}

const check: OperationMessage = { op: 'check-volume', key: volumeKey('data-1') };

describe("a volume check's attaching attachments", () => {
  it('are left as they are by a check delivered for the first time', async () => {
    const h = await attachingWithoutCheck();
    await h.executor.run([{ messageId: 'another', message: check, receiveCount: 1 }]);
    expect((await h.store.get(attachmentKey('data-1')))!.status.state).toBe('attaching');
    expect(h.queue.pending().filter((p) => p.message.key.kind === 'attachment')).toEqual([]);
  });

  it('are taken up by a check delivered again: the attach is found done', async () => {
    const h = await attachingWithoutCheck();
    await h.executor.run([{ messageId: 'first', message: check, receiveCount: 2 }]);
    expect((await h.store.get(attachmentKey('data-1')))!.status.state).toBe('attached');
    expect(h.ebs.calls.AttachVolume).toBe(1);
  });
});
