/**
 * An operation's own message that reaches its record once another message has started the
 * operation is held back only when it comes before the first progress check's time
 * (`checkNotDue`). At that very time it is no longer early: it looks now, as one past it does,
 * and sends no check of its own beside the chain already queued.
 */
import { describe, expect, it } from 'vitest';
import type { OperationMessage } from '../../lib/engine/ports.js';
import { creatingData1, volumeKey } from './engine-fixtures.js';

const KEY = volumeKey('data-1');

describe("an operation's own message reaching the record at its first check's time", () => {
  it('describes at once, makes no second CreateVolume and sends no check beside the chain', async () => {
    const { h, firstCheckAt } = await creatingData1();
    await h.clock.advance(firstCheckAt - h.clock.now());
    expect(h.clock.now()).toBe(firstCheckAt);
    const describes = h.ebs.calls.DescribeVolumes;
    const queued = h.queued();
    const message: OperationMessage = { op: 'create-volume', key: KEY, reason: 'waited past one queue delay', dueAt: h.clock.now() };

    expect((await h.executor.run(h.batchOf(message))).failedMessageIds).toEqual([]);

    expect(h.ebs.calls.DescribeVolumes).toBe(describes + 1);
    expect(h.ebs.calls.CreateVolume).toBe(1);
    expect(h.queued()).toEqual(queued);
  });
});
