/**
 * An attachment's result that has its volume checked sends that check as a look
 * (`OperationMessage.nudge`) only when the volume's operation was under way when the batch read
 * it: a volume at rest has no chain of checks of its own, so the check is a plain one.
 */
import { describe, expect, it } from 'vitest';
import { attachmentKey, harness, newAttachment, newVolume, volumeOf } from './engine-fixtures.js';

describe('the check of a volume at rest after its attachment goes', () => {
  it('is sent as a check, not as a look', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await h.store.create(newAttachment('data-1'));
    for (let i = 0; i < 4; i++) {
      await h.watch();
      await h.settle(10_000);
    }
    await h.watch();
    const volume = await volumeOf(h);
    expect(volume.status.state).toBe('in-use');
    // Detached in the console; the detach then finds it done.
    await h.ebs.detachVolume({ ebsVolumeId: volume.ebsVolumeId!, instanceId: 'i-0123456789abcdef0' });
    await h.clock.advance(60_000);

    await h.store.update(attachmentKey('data-1'), { life: 'dying' });
    h.queue.purge();
    await h.executor.run(h.batchOf(h.op('detach', attachmentKey('data-1'))));

    expect(await h.store.get(attachmentKey('data-1'))).toBeUndefined();
    const messages = h.queue.pending().map((pending) => pending.message);
    expect(messages).toEqual([expect.objectContaining({ op: 'check-volume', key: { kind: 'volume', volumeId: 'data-1' } })]);
    expect(messages[0]).not.toHaveProperty('nudge');
  });
});
