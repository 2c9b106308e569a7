/**
 * Checks reaching a record another invocation holds come back when its claim ends (`heldByOther`),
 * as one message. That message stays a check of the operation's chain (`OperationMessage.chainOf`)
 * only when every copy was a check of that one chain: a copy that was of no chain (the watcher's
 * check), or of another chain, makes it a check of none, which comes back as a full check.
 */
import { describe, expect, it } from 'vitest';
import type { OperationMessage } from '../../lib/engine/ports.js';
import { iopsModification, volumeKey, volumeOf } from './engine-fixtures.js';

const KEY = volumeKey('data-1');

/** data-1 modifying for hours, its chain's check taken off the queue, the record held by another invocation. */
async function heldWhileModifying() {
  const h = await iopsModification({ modify: 3_600_000, optimize: 3_600_000 });
  await h.clock.advance(600_000);
  const started = (await volumeOf(h)).status.operationStartedAt!;
  h.queue.receive(100).forEach((r) => h.queue.delete(r.receiptHandle));
  const claim = await h.store.claim(KEY, 'another-invocation', h.clock.now(), 60_000);
  expect(claim.ok).toBe(true);
  return { h, started };
}

async function resentAfter(h: Awaited<ReturnType<typeof heldWhileModifying>>['h'], messages: OperationMessage[]): Promise<OperationMessage[]> {
  const describes = h.ebs.calls.DescribeVolumes;
  await h.executor.run(messages.map((message, index) => ({ messageId: `m-${index}`, message, receiveCount: 1 })));
  expect(h.ebs.calls.DescribeVolumes).toBe(describes);
  return h.queue.pending().map((p) => p.message);
}

describe('checks of a record another invocation holds, sent back as one', () => {
  it('all of the chain under way: a check of that chain', async () => {
    const { h, started } = await heldWhileModifying();
    const resent = await resentAfter(h, [{ op: 'check-volume', key: KEY, chainOf: started }]);
    expect(resent).toEqual([expect.objectContaining({ op: 'check-volume', chainOf: started })]);
  });

  it("with the watcher's check beside the chain's: a check of no chain", async () => {
    const { h, started } = await heldWhileModifying();
    const resent = await resentAfter(h, [
      { op: 'check-volume', key: KEY, chainOf: started },
      { op: 'check-volume', key: KEY, reason: 'attachment changed' },
    ]);
    expect(resent).toEqual([expect.objectContaining({ op: 'check-volume' })]);
    expect(resent[0]).not.toHaveProperty('chainOf');
  });

  it("with a check of an earlier operation's chain beside the chain's: not a check of that earlier chain", async () => {
    const { h, started } = await heldWhileModifying();
    const earlier = new Date(Date.parse(started) - 3_600_000).toISOString();
    const resent = await resentAfter(h, [
      { op: 'check-volume', key: KEY, chainOf: earlier },
      { op: 'check-volume', key: KEY, chainOf: started },
    ]);
    expect(resent).toEqual([expect.objectContaining({ op: 'check-volume' })]);
    expect(resent[0]!.chainOf).not.toBe(earlier);
  });
});
