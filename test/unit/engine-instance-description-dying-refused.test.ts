/**
 * An attach refused and waiting for its retry makes its instance's other attaches describe the
 * instance afresh. One the client removed meanwhile waits for no retry: the others go on reusing
 * the description held.
 */
import { describe, expect, it } from 'vitest';
import { attachmentKey, harness, newAttachment, newVolume, settleAll } from './engine-fixtures.js';

describe('a removed attachment whose attach was refused', () => {
  it("does not make its instance's other attaches describe the instance again", async () => {
    const h = harness();
    for (const id of ['data-1', 'data-3']) await h.store.create(newVolume(id));
    await settleAll(h);
    await h.store.create(newAttachment('data-1'));
    await settleAll(h);
    expect((await h.store.get(attachmentKey('data-1')))!.status.state).toBe('attached');
    const describedBefore = h.ebs.calls.DescribeInstances;
    expect(describedBefore).toBe(1);

    const now = h.clock.now();
    h.store.putRaw({ ...newAttachment('data-2'), life: 'dying', status: { state: 'pending', code: 'IncorrectInstanceState', attempts: 1, updatedAt: new Date(now).toISOString(), nextAttemptAt: new Date(now + 60_000).toISOString() } });
    await h.store.create(newAttachment('data-3'));
    await h.watch();
    await h.drain();

    expect((await h.store.get(attachmentKey('data-3')))!.status.state).toBe('attaching');
    expect(h.ebs.calls.DescribeInstances).toBe(describedBefore);
  });
});
