/**
 * A detach EC2 answers as already done (the volume detached outside the system meanwhile): the
 * attachment record goes with no progress check, and its volume is looked at at once, so the
 * volume record says available without waiting for anything else to look. The volume was at rest,
 * with no chain of checks of its own, so that check is a plain one, not a look
 * (`OperationMessage.nudge`, only for a volume whose operation is under way).
 */
import { describe, expect, it } from 'vitest';
import { attachmentKey, harness, newAttachment, newVolume, volumeKey, volumeOf } from './engine-fixtures.js';

describe('a detach of a volume already detached outside the system', () => {
  it('removes the attachment and has its volume checked at once', async () => {
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
    // Detached in the console; nothing has looked since.
    await h.ebs.detachVolume({ ebsVolumeId: volume.ebsVolumeId!, instanceId: 'i-0123456789abcdef0' });
    await h.clock.advance(60_000);
    expect(h.ebs.volume(volume.ebsVolumeId!)!.state).toBe('available');

    await h.store.update(attachmentKey('data-1'), { life: 'dying' });
    h.queue.purge();
    await h.executor.run(h.batchOf(h.op('detach', attachmentKey('data-1'))));
    expect(await h.store.get(attachmentKey('data-1'))).toBeUndefined();
    expect(h.queued()).toEqual([{ op: 'check-volume', key: 'data-1', delaySeconds: 0 }]);
    expect(h.queue.pending()[0]!.message).not.toHaveProperty('nudge');
    await h.drain();
    expect((await h.store.get(volumeKey('data-1')))!.status.state).toBe('available');
  });
});
