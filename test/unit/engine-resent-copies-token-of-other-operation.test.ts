/**
 * A token a message carries (`OperationMessage.tokenAt`) is for its own operation's first call
 * (`Item.tokenOp`). Copies not due yet go back as one message, of the first copy's operation
 * (`resend`): a token carried by a copy of another operation does not go with it, where it would
 * be spent on a call of another EC2 bucket. One carried by a copy of that operation does.
 */
import { describe, expect, it } from 'vitest';
import type { OperationMessage } from '../../lib/engine/ports.js';
import { harness, volumeKey } from './engine-fixtures.js';

const KEY = volumeKey('data-1');

describe('copies of a message not due yet, sent back as one', () => {
  it("carry no token taken for another copy's operation", async () => {
    const h = harness();
    const dueAt = h.clock.now() + 60_000;
    const tag: OperationMessage = { op: 'tag-volume', key: KEY, reason: 'spec changed', dueAt };
    const modify: OperationMessage = { op: 'modify-volume', key: KEY, reason: 'waiting for the ModifyVolume rate budget', dueAt, tokenAt: h.clock.now() + 30_000 };

    await h.executor.run(h.batchOf(tag, modify));

    const resent = h.queue.pending();
    expect(resent.map((p) => ({ message: p.message, visibleAt: p.visibleAt }))).toEqual([{ message: expect.objectContaining({ op: 'tag-volume', key: KEY }), visibleAt: dueAt }]);
    expect(resent[0]!.message).not.toHaveProperty('tokenAt');
  });

  it('carry the token taken for their own operation', async () => {
    const h = harness();
    const dueAt = h.clock.now() + 60_000;
    const tokenAt = h.clock.now() + 30_000;
    const modify: OperationMessage = { op: 'modify-volume', key: KEY, reason: 'waiting for the ModifyVolume rate budget', dueAt, tokenAt };

    await h.executor.run(h.batchOf(modify, { op: 'check-volume', key: KEY, reason: 'attachment changed', dueAt }));

    expect(h.queue.pending().map((p) => ({ message: p.message, visibleAt: p.visibleAt }))).toEqual([{ message: expect.objectContaining({ op: 'modify-volume', key: KEY, tokenAt }), visibleAt: dueAt }]);
  });
});
