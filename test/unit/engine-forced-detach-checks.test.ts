/**
 * What a check of a forced detach finds: the time of the forced call (`forceDetachSentAt`) belongs
 * to that detach only. A record set back to alive once EC2 detached it, or a forced call EC2
 * accepted and did not carry out, no longer carries it; dying, the detach is forced again after
 * its backoff. And a detach EC2 did not carry out, listed without a device name, keeps the
 * record's device.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord } from '../../lib/domain/records.js';
import { DEFAULT_ENGINE_CONFIG } from '../../lib/engine/config.js';
import { Executor } from '../../lib/engine/executor.js';
import { silentLog } from '../../lib/memory/index.js';
import { INSTANCE, attachmentKey, harness, newAttachment, newVolume, providerOver, volumeOf, attachmentOf } from './engine-fixtures.js';

const KEY = attachmentKey('data-1');

/** data-1 attached to INSTANCE in EC2, with records to match; its EC2 volume id. */
async function attachedVolume(h: ReturnType<typeof harness>): Promise<string> {
  await h.store.create(newVolume('data-1'));
  await h.store.create(newAttachment('data-1'));
  for (let i = 0; i < 3; i++) {
    await h.watch();
    await h.settle(30_000);
  }
  expect((await attachmentOf(h)).status.state).toBe('attached');
  h.changes.length = 0;
  h.queue.receive(100).forEach((r) => h.queue.delete(r.receiptHandle));
  return (await volumeOf(h)).ebsVolumeId!;
}

/** An executor whose DetachVolume calls are recorded, and carried out by EC2 only while `takes()` says so. */
function executorRecordingDetaches(h: ReturnType<typeof harness>, takes: () => boolean) {
  const detaches: { force?: boolean }[] = [];
  const provider = providerOver(h.ebs, {
    detachVolume: async (request) => {
      detaches.push(request.force ? { force: true } : {});
      if (takes()) await h.ebs.detachVolume(request);
    },
  });
  const executor = new Executor({ store: h.store, queue: h.queue, provider, clock: h.clock, metrics: h.metrics, log: silentLog, random: () => 0.5, config: { rateWaitMaxMs: 0 } });
  return { executor, detaches };
}

describe('executor: checks of a forced detach', () => {
  it('set back to alive while EC2 detached it with force: pending, to attach again, without the forced call recorded', async () => {
    const h = harness();
    const ebsVolumeId = await attachedVolume(h);
    const { executor, detaches } = executorRecordingDetaches(h, () => true);
    await h.store.update<AttachmentRecord>(KEY, { life: 'dying', forceDetach: true });
    await executor.run(h.batchOf(h.op('detach', KEY)));
    expect(detaches).toEqual([{ force: true }]);
    expect(await attachmentOf(h)).toMatchObject({ status: { state: 'detaching' }, forceDetachSentAt: new Date(h.clock.now()).toISOString() });

    await h.store.update<AttachmentRecord>(KEY, { life: 'alive' });
    await h.clock.advance(5_000);
    await executor.run(h.batchOf(h.op('check-attachment', KEY)));
    const detached = await attachmentOf(h);
    expect(detached.status).toMatchObject({ state: 'pending', message: 'detached; attaching again: the record was set back to alive during the detach' });
    expect(detached.device).toBeUndefined();
    expect(detached.forceDetachSentAt).toBeUndefined();
    expect(h.ebs.volume(ebsVolumeId)?.attachments).toEqual([]);
  });

  it('a forced call EC2 accepted and did not carry out is, past the describe grace, a failed attempt; the detach is forced again after its backoff and the record removed', async () => {
    const h = harness();
    const ebsVolumeId = await attachedVolume(h);
    let calls = 0;
    const { executor, detaches } = executorRecordingDetaches(h, () => ++calls > 1);
    await h.store.update<AttachmentRecord>(KEY, { life: 'dying', forceDetach: true });
    await executor.run(h.batchOf(h.op('detach', KEY)));
    expect(detaches).toEqual([{ force: true }]);
    const device = (await attachmentOf(h)).device;

    await h.clock.advance(DEFAULT_ENGINE_CONFIG.describeGraceMs + 1_000);
    await executor.run(h.batchOf(h.op('check-attachment', KEY)));
    const failed = await attachmentOf(h);
    expect(failed.status).toMatchObject({ state: 'attached', code: 'AttachmentNotDetached', attempts: 1, message: `EC2 still lists ${ebsVolumeId} attached to ${INSTANCE} after the detach` });
    expect(failed.status.nextAttemptAt).toBeDefined();
    expect(failed.device).toBe(device);
    expect(failed.forceDetachSentAt).toBeUndefined();

    await h.clock.advance(Date.parse(failed.status.nextAttemptAt!) - h.clock.now());
    for (let i = 0; i < 10 && (await h.store.get(KEY)); i++) {
      const received = h.queue.receive(100);
      if (received.length > 0) await executor.run(received.map((r) => ({ messageId: r.messageId, message: r.message })));
      for (const r of received) h.queue.delete(r.receiptHandle);
      await h.clock.advance(5_000);
    }
    expect(detaches).toEqual([{ force: true }, { force: true }]);
    expect(await h.store.get(KEY)).toBeUndefined();
    expect(h.ebs.volume(ebsVolumeId)?.attachments).toEqual([]);
  });
});

describe('executor: a detach EC2 did not carry out, listed without a device name', () => {
  it('keeps the device the record holds (an answer without a name changes nothing there)', async () => {
    const h = harness();
    const ebsVolumeId = await attachedVolume(h);
    const device = (await attachmentOf(h)).device;
    expect(device).toBeDefined();
    const { executor } = executorRecordingDetaches(h, () => false);
    await h.store.update<AttachmentRecord>(KEY, { life: 'dying' });
    await executor.run(h.batchOf(h.op('detach', KEY)));
    expect((await attachmentOf(h)).status.state).toBe('detaching');

    // EC2 (an emulator, say) lists the attachment without its device name.
    const unnamed = providerOver(h.ebs, {
      describeVolumes: async (ids) => (await h.ebs.describeVolumes(ids)).map((v) => ({ ...v, attachments: v.attachments.map((a) => ({ ...a, device: '' })) })),
    });
    const looking = new Executor({ store: h.store, queue: h.queue, provider: unnamed, clock: h.clock, metrics: h.metrics, log: silentLog, config: { rateWaitMaxMs: 0 } });
    await h.clock.advance(DEFAULT_ENGINE_CONFIG.describeGraceMs + 1_000);
    await looking.run(h.batchOf(h.op('check-attachment', KEY)));
    const failed = await attachmentOf(h);
    expect(failed.status).toMatchObject({ state: 'attached', code: 'AttachmentNotDetached', message: `EC2 still lists ${ebsVolumeId} attached to ${INSTANCE} after the detach` });
    expect(failed.device).toBe(device);
  });
});
