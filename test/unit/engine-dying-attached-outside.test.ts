/**
 * A pending attachment that never sent AttachVolume (no device), whose single-attach volume
 * someone attaches in the console to the attachment's own instance before any check has recorded
 * it, then deleted by its client. Removed as never attached, it would leave the EC2 volume
 * attached with no record, and the volume's delete would wait for ever for a detach no one makes.
 * It must look first (one DescribeVolumes) and, attached there, be detached; otherwise removed,
 * with no EC2 call at all when its volume record says available or another record holds it.
 * The same holds of one in error without a device, and of a Multi-Attach volume in use, whatever
 * other records hold it; a dying volume's message counts such an attachment as one to detach.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord, VolumeRecord } from '../../lib/domain/records.js';
import { INSTANCE, OTHER_INSTANCE, attachmentKey, data1Created, harness, iopsModification, newAttachment, newVolume, volumeKey, volumeOf } from './engine-fixtures.js';

type Harness = ReturnType<typeof harness>;

/** Volume data-1 available, every change seen by the watcher. */
async function availableVolume(): Promise<Harness> {
  const h = harness();
  await data1Created(h);
  expect((await volumeOf(h)).status.state).toBe('available');
  return h;
}

/** An attachment of data-1 to `instanceId` that waits (planned while the volume was not ready), seen by no one since. */
async function waitingAttachment(h: Harness, instanceId = INSTANCE): Promise<void> {
  await h.store.create(
    newAttachment('data-1', {
      instanceId,
      status: { state: 'pending', attempts: 0, updatedAt: new Date(h.clock.now()).toISOString(), message: 'waiting for volume data-1 to become available' },
    }),
  );
  h.changes.splice(0);
}

/** Someone attaches data-1's EC2 volume to `instanceId` in the console. */
async function attachInConsole(h: Harness, instanceId: string): Promise<string> {
  const { ebsVolumeId } = await volumeOf(h);
  await h.ebs.attachVolume({ ebsVolumeId: ebsVolumeId!, instanceId, device: '/dev/sdz' });
  return ebsVolumeId!;
}

/** Runs the watcher and the executor until nothing is left to do. */
async function converge(h: Harness, rounds = 8): Promise<void> {
  for (let round = 0; round < rounds; round++) {
    await h.watch();
    await h.settle(10_000);
  }
  await h.watch();
}

describe('a dying attachment that never sent AttachVolume, its volume attached outside the system', () => {
  it('to its own instance, just written in use, then attachment and volume deleted: it looks, detaches, and the volume is deleted', async () => {
    const h = await availableVolume();
    await waitingAttachment(h);
    const ebsVolumeId = await attachInConsole(h, INSTANCE);
    await h.clock.advance(10_000);
    // A check of the volume (the reconciler's, say) writes it in use; the client deletes the attachment before the watcher sees that.
    await h.executor.run(h.batchOf(h.op('check-volume', volumeKey('data-1'))));
    expect((await volumeOf(h)).status.state).toBe('in-use');
    await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { life: 'dying' });
    await h.watch();
    expect(h.queued()).toContainEqual({ op: 'check-attachment', key: `data-1/${INSTANCE}`, delaySeconds: 0 });
    expect(await h.store.get(attachmentKey('data-1'))).toBeDefined();
    await converge(h);
    expect(await h.store.get(attachmentKey('data-1'))).toBeUndefined();
    expect(h.ebs.volume(ebsVolumeId)?.attachments ?? []).toEqual([]);
    expect(h.ebs.calls.DetachVolume).toBe(1);

    await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'dying' });
    await converge(h);
    expect(await h.store.get(volumeKey('data-1'))).toBeUndefined();
    expect(h.ebs.volume(ebsVolumeId)).toBeUndefined();
    expect(h.ebs.calls.DeleteVolume).toBe(1);
    expect(h.ebs.calls.AttachVolume).toBe(1);
  });

  it('to its own instance while the volume is being modified, then the volume deleted (the attachment dying with it): both go', async () => {
    const h = await iopsModification({ modify: 600_000, optimize: 600_000 });
    await waitingAttachment(h);
    await h.watch();
    const ebsVolumeId = await attachInConsole(h, INSTANCE);
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'dying' });
    await converge(h, 12);
    expect(await h.store.get(attachmentKey('data-1'))).toBeUndefined();
    expect(h.ebs.calls.DetachVolume).toBe(1);
    // The volume's delete waits for EC2's modification, as any dying volume's.
    await converge(h, 150);
    expect(await h.store.get(volumeKey('data-1'))).toBeUndefined();
    expect(h.ebs.volume(ebsVolumeId)).toBeUndefined();
  });

  it('to another instance, no record holding it: the look finds nothing attached here and the attachment is removed, no detach', async () => {
    const h = await availableVolume();
    await waitingAttachment(h);
    const ebsVolumeId = await attachInConsole(h, OTHER_INSTANCE);
    await h.clock.advance(10_000);
    await h.executor.run(h.batchOf(h.op('check-volume', volumeKey('data-1'))));
    await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { life: 'dying' });
    await h.watch();
    expect(h.queued()).toContainEqual({ op: 'check-attachment', key: `data-1/${INSTANCE}`, delaySeconds: 0 });
    await converge(h);
    expect(await h.store.get(attachmentKey('data-1'))).toBeUndefined();
    expect(h.ebs.calls.DetachVolume ?? 0).toBe(0);
    expect(h.ebs.volume(ebsVolumeId)?.attachments).toEqual([{ instanceId: OTHER_INSTANCE, device: '/dev/sdz', state: 'attached' }]);
  });

  it('its volume held by another attachment record: removed at once with no EC2 call', async () => {
    const h = await availableVolume();
    await h.store.create(newAttachment('data-1'));
    await converge(h);
    expect((await volumeOf(h)).status.state).toBe('in-use');
    await waitingAttachment(h, OTHER_INSTANCE);
    await h.store.update<AttachmentRecord>(attachmentKey('data-1', OTHER_INSTANCE), { life: 'dying' });
    const calls = { ...h.ebs.calls };
    await h.watch();
    expect(await h.store.get(attachmentKey('data-1', OTHER_INSTANCE))).toBeUndefined();
    expect(h.queued().filter((q) => q.key !== 'data-1')).toEqual([]);
    expect(h.ebs.calls).toEqual(calls);
  });

  it('its volume record available: removed at once with no EC2 call', async () => {
    const h = await availableVolume();
    await waitingAttachment(h);
    await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { life: 'dying' });
    const calls = { ...h.ebs.calls };
    await h.watch();
    expect(await h.store.get(attachmentKey('data-1'))).toBeUndefined();
    expect(h.queued().filter((q) => q.key !== 'data-1')).toEqual([]);
    expect(h.ebs.calls).toEqual(calls);
  });
});

/** Volume data-1, Multi-Attach, attached by its record to OTHER_INSTANCE, every change seen by the watcher. */
async function multiAttachVolumeInUse(): Promise<Harness> {
  const h = harness();
  await h.store.create(newVolume('data-1', {}, { volumeType: 'io2', iops: 1000, multiAttach: true }));
  await converge(h);
  await h.store.create(newAttachment('data-1', { instanceId: OTHER_INSTANCE }));
  await converge(h);
  expect((await volumeOf(h)).status.state).toBe('in-use');
  return h;
}

/** An attachment of data-1 to INSTANCE given up on before any AttachVolume (in error, no device), seen by no one since. */
async function failedAttachment(h: Harness): Promise<void> {
  await h.store.create(
    newAttachment('data-1', {
      status: { state: 'error', attempts: 5, updatedAt: new Date(h.clock.now()).toISOString(), code: 'IncorrectState', message: 'gave up waiting for volume data-1' },
    }),
  );
  h.changes.splice(0);
}

describe('a dying Multi-Attach attachment that never sent AttachVolume, its volume in use through another record', () => {
  it('attached to its own instance in the console: it looks despite the other record, detaches from its instance only, the other stays', async () => {
    const h = await multiAttachVolumeInUse();
    await waitingAttachment(h);
    const ebsVolumeId = await attachInConsole(h, INSTANCE);
    await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { life: 'dying' });
    await h.watch();
    expect(h.queued()).toContainEqual({ op: 'check-attachment', key: `data-1/${INSTANCE}`, delaySeconds: 0 });
    await converge(h);
    expect(await h.store.get(attachmentKey('data-1'))).toBeUndefined();
    expect(h.ebs.calls.DetachVolume).toBe(1);
    expect(h.ebs.volume(ebsVolumeId)?.attachments.map((a) => a.instanceId)).toEqual([OTHER_INSTANCE]);
    expect((await h.store.get(attachmentKey('data-1', OTHER_INSTANCE)))?.status.state).toBe('attached');
  });

  it('not attached to its instance: the look finds nothing and it is removed with no detach', async () => {
    const h = await multiAttachVolumeInUse();
    await waitingAttachment(h);
    await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { life: 'dying' });
    await h.watch();
    expect(h.queued()).toContainEqual({ op: 'check-attachment', key: `data-1/${INSTANCE}`, delaySeconds: 0 });
    await converge(h);
    expect(await h.store.get(attachmentKey('data-1'))).toBeUndefined();
    expect(h.ebs.calls.DetachVolume ?? 0).toBe(0);
  });
});

describe('a dying attachment in error without a device, its volume attached outside the system', () => {
  it('to its own instance, written in use: it looks, detaches, and the volume is then deleted', async () => {
    const h = await availableVolume();
    await failedAttachment(h);
    const ebsVolumeId = await attachInConsole(h, INSTANCE);
    await h.clock.advance(10_000);
    await h.executor.run(h.batchOf(h.op('check-volume', volumeKey('data-1'))));
    expect((await volumeOf(h)).status.state).toBe('in-use');
    await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { life: 'dying' });
    await h.watch();
    expect(h.queued()).toContainEqual({ op: 'check-attachment', key: `data-1/${INSTANCE}`, delaySeconds: 0 });
    await converge(h);
    expect(await h.store.get(attachmentKey('data-1'))).toBeUndefined();
    expect(h.ebs.volume(ebsVolumeId)?.attachments ?? []).toEqual([]);
    expect(h.ebs.calls.DetachVolume).toBe(1);

    await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'dying' });
    await converge(h);
    expect(await h.store.get(volumeKey('data-1'))).toBeUndefined();
    expect(h.ebs.volume(ebsVolumeId)).toBeUndefined();
  });

  it('to another instance: the look finds nothing here and it is removed, no detach', async () => {
    const h = await availableVolume();
    await failedAttachment(h);
    const ebsVolumeId = await attachInConsole(h, OTHER_INSTANCE);
    await h.clock.advance(10_000);
    await h.executor.run(h.batchOf(h.op('check-volume', volumeKey('data-1'))));
    await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { life: 'dying' });
    await h.watch();
    expect(h.queued()).toContainEqual({ op: 'check-attachment', key: `data-1/${INSTANCE}`, delaySeconds: 0 });
    await converge(h);
    expect(await h.store.get(attachmentKey('data-1'))).toBeUndefined();
    expect(h.ebs.calls.DetachVolume ?? 0).toBe(0);
    expect(h.ebs.volume(ebsVolumeId)?.attachments.map((a) => a.instanceId)).toEqual([OTHER_INSTANCE]);
  });

  it('its volume record available: removed at once with no EC2 call', async () => {
    const h = await availableVolume();
    await failedAttachment(h);
    await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { life: 'dying' });
    const calls = { ...h.ebs.calls };
    await h.watch();
    expect(await h.store.get(attachmentKey('data-1'))).toBeUndefined();
    expect(h.queued().filter((q) => q.key !== 'data-1')).toEqual([]);
    expect(h.ebs.calls).toEqual(calls);
  });
});

describe("a dying volume's message while such an attachment looks", () => {
  it('counts the attachment as one to detach, not as never attached, and its look then detaches it', async () => {
    const h = await availableVolume();
    await waitingAttachment(h);
    await attachInConsole(h, INSTANCE);
    await h.clock.advance(10_000);
    await h.executor.run(h.batchOf(h.op('check-volume', volumeKey('data-1'))));
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'dying' });
    await h.watch();
    expect((await volumeOf(h)).status.message).toBe('detaching 1 attachment(s) before deleting');
    await h.watch();
    expect(h.queued()).toContainEqual({ op: 'check-attachment', key: `data-1/${INSTANCE}`, delaySeconds: 0 });
    expect((await volumeOf(h)).status.message).toBe('detaching 1 attachment(s) before deleting');
    await converge(h);
    expect(await h.store.get(volumeKey('data-1'))).toBeUndefined();
    expect(h.ebs.calls.DetachVolume).toBe(1);
  });
});
