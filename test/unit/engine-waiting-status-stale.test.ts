/**
 * An attachment that waits for its volume says what it waits for now, also after a change of the
 * volume that does not make it available, in use or in error: the volume's change brings the
 * watcher to its waiting attachments, which write the wait from the records alone (no EC2 call,
 * no message), rather than keep one that is no longer true until the reconciler's next pass.
 */
import { describe, expect, it, vi } from 'vitest';
import type { AttachmentRecord, VolumeRecord } from '../../lib/domain/records.js';
import { ProviderError } from '../../lib/engine/ports.js';
import { INSTANCE, OTHER_INSTANCE, attachmentKey, data1Created, harness, newAttachment, newVolume, volumeKey, volumeOf } from './engine-fixtures.js';

const transient = () => new ProviderError('transient', 'InternalError', 'An internal error has occurred');

async function statusOf(h: ReturnType<typeof harness>, instanceId = INSTANCE) {
  return (await h.store.get(attachmentKey('data-1', instanceId)))!.status;
}

/** Total EC2 calls made so far. */
function ec2Calls(h: ReturnType<typeof harness>): number {
  return Object.values(h.ebs.calls).reduce((sum, n) => sum + n, 0);
}

/** The watcher takes the changes written so far; what it made of them, for the attachment to INSTANCE. */
async function watched(h: ReturnType<typeof harness>) {
  const calls = ec2Calls(h);
  await h.watch();
  expect(ec2Calls(h)).toBe(calls);
  expect(h.queued().filter((q) => q.key === `data-1/${INSTANCE}`)).toEqual([]);
  return statusOf(h);
}

describe('a waiting attachment whose volume changes what it waits for', () => {
  it('in use by another instance, then modified: it waits for the volume to become available, and attaches once the other has left and the modification is done', async () => {
    const h = harness({ ebsTimings: { modify: 600_000, optimize: 600_000 } });
    await h.store.create(newVolume('data-1', {}, { iops: 3000 }));
    await h.watch();
    await h.settle(10_000);
    await h.watch();
    await h.store.create(newAttachment('data-1', { instanceId: OTHER_INSTANCE }));
    await h.watch();
    await h.settle(10_000);
    await h.watch();
    await h.store.create(newAttachment('data-1'));
    await h.watch();
    expect(await statusOf(h)).toMatchObject({ state: 'pending', message: 'waiting for volume data-1 to be detached from its other instance' });

    const volume = await volumeOf(h);
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { spec: { ...volume.spec, iops: 4000 }, generation: 2 });
    await h.watch();
    await h.drain();
    expect((await volumeOf(h)).status.state).toBe('modifying');
    // The stream brings the volume's change (in use to modifying) to the watcher.
    expect(await watched(h)).toMatchObject({ state: 'pending', message: 'waiting for volume data-1 to become available' });

    // The other attachment leaves while EC2 modifies the volume: what it waits for stays true.
    await h.store.update<AttachmentRecord>(attachmentKey('data-1', OTHER_INSTANCE), { life: 'dying' });
    await h.watch();
    await h.settle(20_000);
    await h.watch();
    expect(await h.store.get(attachmentKey('data-1', OTHER_INSTANCE))).toBeUndefined();
    expect((await volumeOf(h)).status.state).toBe('modifying');
    expect((await statusOf(h)).message).toBe('waiting for volume data-1 to become available');

    for (let round = 0; round < 12 && (await statusOf(h)).state !== 'attached'; round++) {
      await h.settle(60_000, 10_000);
      await h.watch();
    }
    expect(await statusOf(h)).toMatchObject({ state: 'attached' });
    expect(h.ebs.calls.AttachVolume).toBe(2);
  });

  it('set back to alive while it was being deleted: the attachment that waited for the deletion waits for the volume in error to be retried', async () => {
    const h = harness({ config: { maxAttempts: 2 } });
    await data1Created(h, 10_000);
    h.ebs.failNext('DeleteVolume', transient(), 100);
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'dying' });
    await h.watch();
    await h.settle(60_000);
    await h.watch();
    expect((await volumeOf(h)).status).toMatchObject({ state: 'error', code: 'InternalError' });
    // Written while the volume waits, dying, for its next DeleteVolume.
    await h.store.create(newAttachment('data-1'));
    await h.watch();
    expect((await statusOf(h)).message).toBe('volume data-1 is being deleted');

    await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'alive' });
    expect(await watched(h)).toMatchObject({
      state: 'pending',
      message: 'volume data-1 is in error: InternalError; the attach waits until the volume is retried',
    });
  });

  it('in use, then deleted: its own plan makes the waiting attachment dying, and no wait is written after it (a conditional write the cascade had overtaken)', async () => {
    const h = harness();
    await data1Created(h, 10_000);
    await h.store.create(newAttachment('data-1', { instanceId: OTHER_INSTANCE }));
    await h.watch();
    await h.settle(10_000);
    await h.watch();
    await h.store.create(newAttachment('data-1'));
    await h.watch();
    expect((await statusOf(h)).message).toBe('waiting for volume data-1 to be detached from its other instance');

    const update = vi.spyOn(h.store, 'update');
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'dying' });
    await h.watch();
    const waiting = update.mock.calls.filter(([key]) => key.kind === 'attachment' && key.instanceId === INSTANCE);
    expect(waiting.map(([, changes]) => changes)).toEqual([{ life: 'dying', forceDetach: null }]);
    // Never attached: removed without an EC2 call.
    expect(await h.store.get(attachmentKey('data-1'))).toBeUndefined();
  });

  it('set back to alive while it waited, dying, for another attachment to detach: the attachment that waited for the deletion waits for that detach', async () => {
    const h = harness({ ebsTimings: { detach: 600_000 } });
    await data1Created(h, 10_000);
    await h.store.create(newAttachment('data-1', { instanceId: OTHER_INSTANCE }));
    await h.watch();
    await h.settle(10_000);
    await h.watch();
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'dying' });
    await h.watch();
    await h.settle(10_000);
    await h.watch();
    expect(await h.store.get(attachmentKey('data-1', OTHER_INSTANCE))).toMatchObject({ life: 'dying', status: { state: 'detaching' } });
    expect(await volumeOf(h)).toMatchObject({ life: 'dying', status: { state: 'in-use' } });
    await h.store.create(newAttachment('data-1'));
    await h.watch();
    expect((await statusOf(h)).message).toBe('volume data-1 is being deleted');

    await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'alive' });
    expect(await watched(h)).toMatchObject({ state: 'pending', message: 'waiting for volume data-1 to be detached from its other instance' });
  });

  it('a spec asking in the table for Multi-Attach on its single-attach volume in use: the spec is rejected, and the attachment keeps waiting for the detach, with no AttachVolume', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1', {}, { volumeType: 'io2', iops: 3000 }));
    await h.watch();
    await h.settle(10_000);
    await h.watch();
    await h.store.create(newAttachment('data-1', { instanceId: OTHER_INSTANCE }));
    await h.watch();
    await h.settle(10_000);
    await h.watch();
    await h.store.create(newAttachment('data-1'));
    await h.watch();
    const attaches = h.ebs.calls.AttachVolume;

    const volume = await volumeOf(h);
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { spec: { ...volume.spec, multiAttach: true }, generation: 2 });
    expect(await watched(h)).toMatchObject({ state: 'pending', message: 'waiting for volume data-1 to be detached from its other instance' });
    expect((await volumeOf(h)).status).toMatchObject({ state: 'in-use', code: 'InvalidSpecChange' });
    await h.settle(10_000);
    await h.watch();
    expect(h.ebs.calls.AttachVolume).toBe(attaches);
    expect((await statusOf(h)).message).toBe('waiting for volume data-1 to be detached from its other instance');
  });
});
