/**
 * An operation's own message that reaches its record past the first progress check's time, once
 * another message started the operation, is only a look (`checkNotDue`), unless a copy merged
 * with it is a check of that operation's chain: the chain then goes on from this batch, with its
 * next check sent, as it would without the own message beside it.
 */
import { describe, expect, it } from 'vitest';
import type { OperationMessage } from '../../lib/engine/ports.js';
import { iopsModification, volumeKey, volumeOf } from './engine-fixtures.js';

const KEY = volumeKey('data-1');

/** data-1 modifying for hours, the chain's next check due: that check, taken from the queue. */
async function chainCheckDue() {
  const h = await iopsModification({ modify: 3_600_000, optimize: 3_600_000 });
  const started = (await volumeOf(h)).status.operationStartedAt!;
  await h.clock.advance(600_000);
  const received = h.queue.receive(100);
  expect(received.map((r) => r.message)).toEqual([expect.objectContaining({ op: 'check-volume', chainOf: started })]);
  received.forEach((r) => h.queue.delete(r.receiptHandle));
  return { h, started, chainCheck: received[0]!.message };
}

const own: OperationMessage = { op: 'modify-volume', key: KEY, reason: 'spec changed' };

describe("an operation's own message past the first check, the operation under way", () => {
  it("merged with a check of the operation's chain: the chain goes on, its next check sent", async () => {
    const { h, started, chainCheck } = await chainCheckDue();
    const describes = h.ebs.calls.DescribeVolumes;

    await h.executor.run(h.batchOf(own, chainCheck));

    expect(h.ebs.calls.DescribeVolumes).toBe(describes + 1);
    expect(h.queue.pending().map((p) => p.message)).toEqual([expect.objectContaining({ op: 'check-volume', chainOf: started })]);
  });

  it('alone: a look, with no check sent (the chain is the one to go on)', async () => {
    const { h } = await chainCheckDue();
    const describes = h.ebs.calls.DescribeVolumes;

    await h.executor.run(h.batchOf(own));

    expect(h.ebs.calls.DescribeVolumes).toBe(describes + 1);
    expect(h.queue.pending()).toEqual([]);
  });
});
