/**
 * An operation's own message that waited longer than one queue delay (carried on through `dueAt`)
 * and reaches its record once another message has started the operation is judged as any other
 * own message (`checkNotDue`): before the first progress check's time it is held back to that
 * time; past it, the operation's chain of checks is under way, so it is only a look and starts no
 * second chain beside it.
 */
import { describe, expect, it } from 'vitest';
import type { OperationMessage } from '../../lib/engine/ports.js';
import { creatingData1, harness, iopsModification, volumeKey, volumeOf } from './engine-fixtures.js';

const KEY = volumeKey('data-1');

/** `op`'s own message for data-1, carried on through `dueAt` and due now. */
function delayed(h: ReturnType<typeof harness>, op: OperationMessage['op']): OperationMessage {
  return { op, key: KEY, reason: 'waited past one queue delay', dueAt: h.clock.now() };
}

describe("an operation's delayed own message reaching the record once the operation is under way", () => {
  it('past the first check: one DescribeVolumes as a look, and no check sent beside the chain already queued', async () => {
    const h = await iopsModification({ modify: 3_600_000, optimize: 3_600_000 });
    await h.clock.advance(600_000);
    const chain = h.queue.pending().map((pending) => pending.message);
    expect(chain).toEqual([expect.objectContaining({ op: 'check-volume', chainOf: (await volumeOf(h)).status.operationStartedAt })]);
    const describes = h.ebs.calls.DescribeVolumes;

    expect((await h.executor.run(h.batchOf(delayed(h, 'modify-volume')))).failedMessageIds).toEqual([]);

    expect(h.ebs.calls.DescribeVolumes).toBe(describes + 1);
    expect(h.queue.pending().map((pending) => pending.message)).toEqual(chain);
  });

  it('before the first check: no DescribeVolumes, and a check comes back at that time', async () => {
    const { h, firstCheckAt } = await creatingData1();
    await h.clock.advance(firstCheckAt - 1 - h.clock.now());
    const describes = h.ebs.calls.DescribeVolumes;
    const queued = h.queued().length;

    await h.executor.run(h.batchOf(delayed(h, 'create-volume')));

    expect(h.ebs.calls.DescribeVolumes).toBe(describes);
    expect(h.ebs.calls.CreateVolume).toBe(1);
    expect(h.queued().slice(queued)).toEqual([{ op: 'check-volume', key: 'data-1', delaySeconds: 0 }]);
  });
});
