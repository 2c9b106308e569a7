/**
 * A progress check of an earlier operation's chain (`OperationMessage.chainOf` naming another start
 * than the record's) is only a look (`chainEnded`): the operation under way has its own chain. A
 * look delivered beside it (the reconciler's nudge) belongs to no chain and changes nothing: the
 * two together are still only a look, and send no check.
 */
import { describe, expect, it } from 'vitest';
import type { OperationMessage } from '../../lib/engine/ports.js';
import { CHECK_OPERATIONS } from '../../lib/engine/planner.js';
import { iopsModification, volumeKey, volumeOf } from './engine-fixtures.js';

const KEY = volumeKey('data-1');

describe("a check of an earlier operation's chain, delivered with the reconciler's look", () => {
  it('is only a look: one DescribeVolumes, no check sent beside the chain under way', async () => {
    const h = await iopsModification({ modify: 3_600_000, optimize: 3_600_000 });
    await h.clock.advance(600_000);
    const started = (await volumeOf(h)).status.operationStartedAt!;
    const chain = h.queue.pending().map((p) => p.message);
    expect(chain).toEqual([expect.objectContaining({ op: 'check-volume', chainOf: started })]);
    const describes = h.ebs.calls.DescribeVolumes;

    const earlier = new Date(Date.parse(started) - 3_600_000).toISOString();
    const stale: OperationMessage = { op: 'check-volume', key: KEY, reason: 'progress check', chainOf: earlier };
    const look: OperationMessage = { op: 'check-volume', key: KEY, reason: 'reconciler', nudge: true };
    expect((await h.executor.run([
      { messageId: 'stale', message: stale, receiveCount: 1 },
      { messageId: 'look', message: look, receiveCount: 1 },
    ])).failedMessageIds).toEqual([]);

    expect(h.ebs.calls.DescribeVolumes - describes).toBeLessThanOrEqual(1);
    expect(h.queue.pending().map((p) => p.message).filter((m) => CHECK_OPERATIONS.has(m.op))).toEqual(chain);
  });
});
