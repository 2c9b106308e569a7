/**
 * The checks of a detach of the EC2 volumes found by their tags (a dying attachment whose volume
 * record was removed from the table): a failed search for them is a failed attempt of the look,
 * not a finding; and an attachment set back to alive during that detach, once EC2 has detached the
 * volume, attaches the volume record written again under its id when that one is ready (or waits
 * for one), no longer carrying a forced call made before its volume record was removed.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord } from '../../lib/domain/records.js';
import { Executor } from '../../lib/engine/executor.js';
import { ProviderError, type VolumeProvider } from '../../lib/engine/ports.js';
import { silentLog } from '../../lib/memory/index.js';
import { INSTANCE, attachmentKey, harness, newAttachment, newVolume, providerOver, volumeKey, volumeOf, attachmentOf } from './engine-fixtures.js';

const KEY = attachmentKey('data-1');

function executorWith(h: ReturnType<typeof harness>, overrides: Partial<VolumeProvider>): Executor {
  return new Executor({ store: h.store, queue: h.queue, provider: providerOver(h.ebs, overrides), clock: h.clock, metrics: h.metrics, log: silentLog, config: { rateWaitMaxMs: 0 } });
}

/**
 * data-1 attached to INSTANCE, then its volume record removed from the table and its attachment
 * set dying: the detach of the volume found by its tags is accepted by EC2, which does not make it
 * (yet). Returns the EC2 volume's id.
 */
async function detachingByTags(h: ReturnType<typeof harness>): Promise<string> {
  await h.store.create(newVolume('data-1'));
  await h.store.create(newAttachment('data-1'));
  for (let i = 0; i < 3; i++) {
    await h.watch();
    await h.settle(30_000);
  }
  expect((await attachmentOf(h)).status.state).toBe('attached');
  const ebsVolumeId = (await volumeOf(h)).ebsVolumeId!;
  await h.store.remove(volumeKey('data-1'));
  await h.store.update<AttachmentRecord>(KEY, { life: 'dying' });
  h.changes.length = 0;
  h.queue.receive(100).forEach((r) => h.queue.delete(r.receiptHandle));

  const accepting = executorWith(h, { detachVolume: async () => undefined });
  await accepting.run(h.batchOf(h.op('detach', KEY)));
  expect(await attachmentOf(h)).toMatchObject({ status: { state: 'detaching' } });
  expect(h.ebs.volume(ebsVolumeId)?.attachments).toEqual([expect.objectContaining({ instanceId: INSTANCE, state: 'attached' })]);
  return ebsVolumeId;
}

describe('executor: checks of a detach of the volumes found by their tags', () => {
  it('a search by tags that fails is a failed attempt of the look: still detaching, counted; the next look finds the volume detached and removes the record', async () => {
    const h = harness();
    const ebsVolumeId = await detachingByTags(h);
    const before = await attachmentOf(h);

    await h.clock.advance(5_000);
    const failing = executorWith(h, { findOwnedVolumes: async () => Promise.reject(new ProviderError('transient', 'InternalError', 'EC2 had an internal error')) });
    await failing.run(h.batchOf(h.op('check-attachment', KEY)));
    const looked = await attachmentOf(h);
    expect(looked.status).toMatchObject({ state: 'detaching', code: 'InternalError', attempts: before.status.attempts + 1 });
    expect(looked.status.operationStartedAt).toBe(before.status.operationStartedAt);

    await h.ebs.detachVolume({ ebsVolumeId, instanceId: INSTANCE });
    await h.clock.advance(5_000);
    await h.executor.run(h.batchOf(h.op('check-attachment', KEY)));
    expect(await h.store.get(KEY)).toBeUndefined();
  });

  it('set back to alive meanwhile, once EC2 has detached it, it attaches the volume record written again under its id, available by then', async () => {
    const h = harness();
    const ebsVolumeId = await detachingByTags(h);

    // The volume record is written again (a new record, a new EC2 volume) and created; the attachment is set back to alive.
    await h.store.create(newVolume('data-1', { createdAt: new Date(h.clock.now()).toISOString() }));
    await h.executor.run(h.batchOf(h.op('create-volume', volumeKey('data-1'))));
    await h.clock.advance(5_000);
    await h.executor.run(h.batchOf(h.op('check-volume', volumeKey('data-1'))));
    const written = await volumeOf(h);
    expect(written.status.state).toBe('available');
    expect(written.ebsVolumeId).not.toBe(ebsVolumeId);
    await h.store.update<AttachmentRecord>(KEY, { life: 'alive' });

    await h.ebs.detachVolume({ ebsVolumeId, instanceId: INSTANCE });
    await h.clock.advance(5_000);
    await h.executor.run(h.batchOf(h.op('check-attachment', KEY)));
    const detached = await attachmentOf(h);
    expect(detached.status).toMatchObject({ state: 'pending', message: 'detached; attaching again: the record was set back to alive during the detach' });
    expect(detached.device).toBeUndefined();

    await h.watch();
    await h.settle(30_000);
    expect((await attachmentOf(h)).status.state).toBe('attached');
    expect(h.ebs.volume(written.ebsVolumeId!)?.attachments).toEqual([expect.objectContaining({ instanceId: INSTANCE, state: 'attached' })]);
    expect(h.ebs.volume(ebsVolumeId)?.attachments).toEqual([]);
  });

  it('a forced detach of its volume record\'s volume under way when that record was removed: set back to alive and detached, it no longer carries the forced call', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await h.store.create(newAttachment('data-1'));
    for (let i = 0; i < 3; i++) {
      await h.watch();
      await h.settle(30_000);
    }
    const ebsVolumeId = (await volumeOf(h)).ebsVolumeId!;
    await h.store.update<AttachmentRecord>(KEY, { life: 'dying', forceDetach: true });
    const accepting = executorWith(h, { detachVolume: async () => undefined });
    await accepting.run(h.batchOf(h.op('detach', KEY)));
    expect(await attachmentOf(h)).toMatchObject({ status: { state: 'detaching' }, forceDetachSentAt: expect.any(String) });

    // The volume record is removed straight from the table; the attachment set back to alive; EC2 then detaches the volume.
    await h.store.remove(volumeKey('data-1'));
    await h.store.update<AttachmentRecord>(KEY, { life: 'alive' });
    await h.ebs.detachVolume({ ebsVolumeId, instanceId: INSTANCE });
    await h.clock.advance(5_000);
    await h.executor.run(h.batchOf(h.op('check-attachment', KEY)));
    const detached = await attachmentOf(h);
    expect(detached.status.state).toBe('pending');
    expect(detached.status.message).toMatch(/waiting for volume record data-1/);
    expect(detached.device).toBeUndefined();
    expect(detached.forceDetachSentAt).toBeUndefined();
  });
});
