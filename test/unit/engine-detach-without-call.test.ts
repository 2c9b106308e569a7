/**
 * Detaches that make no DetachVolume: of an attachment whose volume record no longer names an EC2
 * volume (it learnt its volume was gone), which is removed at once with a check of its volume;
 * and a forced detach whose record of the forced call cannot be written first, which is not sent
 * until it is (a forced call is sent once: its record is what keeps it so).
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord, VolumeRecord } from '../../lib/domain/records.js';
import { QUEUE } from '../../lib/settings.js';
import { INSTANCE, attachmentKey, harness, newAttachment, newVolume, volumeKey, volumeOf } from './engine-fixtures.js';

const KEY = attachmentKey('data-1');

async function attachmentOf(h: ReturnType<typeof harness>): Promise<AttachmentRecord | undefined> {
  return (await h.store.get(KEY)) as AttachmentRecord | undefined;
}

/** data-1 attached to INSTANCE through the system. */
async function attached(): Promise<{ h: ReturnType<typeof harness>; ebsVolumeId: string }> {
  const h = harness();
  await h.store.create(newVolume('data-1'));
  await h.store.create(newAttachment('data-1'));
  for (let i = 0; i < 4; i++) {
    await h.watch();
    await h.settle(30_000);
  }
  await h.watch();
  expect((await attachmentOf(h))?.status.state).toBe('attached');
  return { h, ebsVolumeId: (await volumeOf(h)).ebsVolumeId! };
}

describe('executor: a detach of an attachment whose volume record names no EC2 volume', () => {
  it('removes the attachment with no call, and checks its volume', async () => {
    const { h, ebsVolumeId } = await attached();
    // Detached and deleted outside the system; the volume's check finds it gone and forgets it.
    await h.ebs.detachVolume({ ebsVolumeId, instanceId: INSTANCE, force: true });
    await h.clock.advance(30_000);
    await h.ebs.deleteVolume(ebsVolumeId);
    await h.clock.advance(30_000);
    await h.executor.run(h.batchOf(h.op('check-volume', volumeKey('data-1'))));
    expect((await volumeOf(h)).ebsVolumeId).toBeUndefined();
    expect((await attachmentOf(h))?.status.state).toBe('attached');
    h.queue.purge();

    await h.store.update<AttachmentRecord>(KEY, { life: 'dying' });
    const detaches = h.ebs.calls.DetachVolume;
    await h.executor.run(h.batchOf(h.op('detach', KEY)));

    expect(h.ebs.calls.DetachVolume).toBe(detaches);
    expect(await attachmentOf(h)).toBeUndefined();
    expect(h.queued()).toContainEqual(expect.objectContaining({ op: 'check-volume', key: 'data-1' }));
  });
});

describe('executor: a forced detach whose record of the forced call cannot be written', () => {
  it('sends no DetachVolume and fails its message; delivered again, it records the call and forces the detach once', async () => {
    const { h, ebsVolumeId } = await attached();
    await h.store.update<AttachmentRecord>(KEY, { life: 'dying', forceDetach: true });
    // The table fails the write that records the forced call (and only that one).
    const update = h.store.update.bind(h.store);
    let refused = 0;
    h.store.update = (async (key, changes, condition) => {
      if (refused === 0 && 'forceDetachSentAt' in (changes as object)) {
        refused++;
        throw new Error('DynamoDB unavailable');
      }
      return update(key, changes, condition);
    }) as typeof h.store.update;
    h.queue.purge();
    await h.queue.send([{ message: h.op('detach', KEY), delaySeconds: 0 }]);
    const [received] = h.queue.receive(10);
    const { failedMessageIds } = await h.executor.run([{ messageId: received!.messageId, message: received!.message, receiveCount: received!.receiveCount }]);

    expect(refused).toBe(1);
    expect(failedMessageIds).toEqual([received!.messageId]);
    expect(h.ebs.calls.DetachVolume).toBe(0);
    const unsent = await attachmentOf(h);
    expect(unsent?.status.state).toBe('attached');
    expect(unsent?.forceDetachSentAt).toBeUndefined();
    expect(h.ebs.volume(ebsVolumeId)?.attachments).toEqual([expect.objectContaining({ instanceId: INSTANCE, state: 'attached' })]);

    // Not deleted, the message comes back once its visibility timeout ends (the claim's lease is over by then).
    await h.clock.advance(QUEUE.visibilityTimeoutSeconds * 1000);
    await h.drain();
    expect(h.ebs.calls.DetachVolume).toBe(1);
    const forced = await attachmentOf(h);
    expect(forced).toMatchObject({ status: { state: 'detaching', message: 'detaching (forced)' }, forceDetachSentAt: expect.any(String) });
    await h.settle(60_000);
    expect(await attachmentOf(h)).toBeUndefined();
    expect(h.ebs.calls.DetachVolume).toBe(1);
    expect(h.ebs.volume(ebsVolumeId)?.attachments).toEqual([]);
    expect((await h.store.get(volumeKey('data-1'))) as VolumeRecord).toMatchObject({ status: { state: 'available' } });
  });
});
