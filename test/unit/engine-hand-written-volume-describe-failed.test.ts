/**
 * A volume record written into the table by hand (no CreateVolume request of its own recorded)
 * must show, by the batch's DescribeVolumes, that the EC2 volume it names is its own before an
 * attach, a detach or a delete acts on that volume. When that describe fails, nothing is called:
 * the step is a failed attempt, retried after its backoff, and the retry goes on once EC2 answers.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord, VolumeRecord } from '../../lib/domain/records.js';
import { Executor } from '../../lib/engine/executor.js';
import { ProviderError, type ProviderVolume } from '../../lib/engine/ports.js';
import { RecordingLog } from '../../lib/memory/log.js';
import { INSTANCE, attachmentKey, harness, newAttachment, newVolume, providerOver, volumeKey, volumeOf } from './engine-fixtures.js';

const DESCRIBE_DOWN = new ProviderError('transient', 'InternalError', 'EC2 had an internal error');

/** data-1 made through the system (attached when `attached`), then its item written back without its CreateVolume request, as a hand-written item would be. */
async function handWritten(attached: boolean, h = harness()): Promise<{ h: ReturnType<typeof harness>; ebsVolumeId: string }> {
  await h.store.create(newVolume('data-1'));
  if (attached) await h.store.create(newAttachment('data-1'));
  for (let i = 0; i < 4; i++) {
    await h.watch();
    await h.settle(30_000);
  }
  await h.watch();
  const { createRequest, ...withoutRequest } = await volumeOf(h);
  expect(createRequest).toBeDefined();
  expect(withoutRequest).toMatchObject({ status: { state: attached ? 'in-use' : 'available' }, ebsVolumeId: expect.any(String) });
  h.store.putRaw(withoutRequest);
  return { h, ebsVolumeId: withoutRequest.ebsVolumeId! };
}

async function attachmentOf(h: ReturnType<typeof harness>): Promise<AttachmentRecord | undefined> {
  return (await h.store.get(attachmentKey('data-1'))) as AttachmentRecord | undefined;
}

describe('executor: a hand-written volume record whose DescribeVolumes fails', () => {
  it('attaches nothing: the attach is a failed attempt, and its retry attaches once EC2 answers', async () => {
    const { h, ebsVolumeId } = await handWritten(false);
    await h.store.create(newAttachment('data-1'));
    h.ebs.failNext('DescribeVolumes', DESCRIBE_DOWN);
    await h.executor.run(h.batchOf(h.op('attach', attachmentKey('data-1'))));

    expect(h.ebs.calls.AttachVolume).toBe(0);
    const failed = await attachmentOf(h);
    expect(failed?.status).toMatchObject({ state: 'pending', code: 'InternalError', attempts: 1, nextAttemptAt: expect.any(String) });
    expect(failed?.device).toBeUndefined();
    expect(h.queued()).toEqual([expect.objectContaining({ op: 'attach', key: 'data-1/i-0123456789abcdef0' })]);

    await h.settle(120_000);
    expect(h.ebs.calls.AttachVolume).toBe(1);
    expect((await attachmentOf(h))?.status).toMatchObject({ state: 'attached', attempts: 0 });
    expect(h.ebs.volume(ebsVolumeId)?.attachments).toEqual([expect.objectContaining({ state: 'attached' })]);
  });

  it('detaches nothing: the detach is a failed attempt, and its retry detaches once EC2 answers', async () => {
    const { h, ebsVolumeId } = await handWritten(true);
    await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { life: 'dying' });
    h.ebs.failNext('DescribeVolumes', DESCRIBE_DOWN);
    await h.executor.run(h.batchOf(h.op('detach', attachmentKey('data-1'))));

    expect(h.ebs.calls.DetachVolume).toBe(0);
    expect((await attachmentOf(h))?.status).toMatchObject({ state: 'attached', code: 'InternalError', attempts: 1, nextAttemptAt: expect.any(String) });
    expect(h.ebs.volume(ebsVolumeId)?.attachments).toEqual([expect.objectContaining({ state: 'attached' })]);

    await h.settle(120_000);
    expect(h.ebs.calls.DetachVolume).toBe(1);
    expect(await attachmentOf(h)).toBeUndefined();
    expect(h.ebs.volume(ebsVolumeId)?.attachments).toEqual([]);
  });

  it('deletes nothing: the delete is a failed attempt, and its retry deletes once EC2 answers', async () => {
    const { h, ebsVolumeId } = await handWritten(false);
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'dying' });
    h.ebs.failNext('DescribeVolumes', DESCRIBE_DOWN);
    await h.executor.run(h.batchOf(h.op('delete-volume', volumeKey('data-1'))));

    expect(h.ebs.calls.DeleteVolume).toBe(0);
    expect((await volumeOf(h)).status).toMatchObject({ state: 'available', code: 'InternalError', attempts: 1, nextAttemptAt: expect.any(String) });
    expect(h.ebs.volume(ebsVolumeId)?.state).toBe('available');

    await h.settle(120_000);
    expect(h.ebs.calls.DeleteVolume).toBe(1);
    expect(await h.store.get(volumeKey('data-1'))).toBeUndefined();
  });
});

describe('executor: a hand-written volume record whose DescribeVolumes answer has an unexpected shape', () => {
  it("fails only its attachment's message: the batch's other attach is made, the error logged", async () => {
    const log = new RecordingLog();
    const { h, ebsVolumeId } = await handWritten(false, harness({ log }));
    await h.store.create(newVolume('data-2'));
    await h.watch();
    await h.settle(10_000);
    await h.store.create(newAttachment('data-1'));
    await h.store.create(newAttachment('data-2'));
    // data-1's volume described without its tags.
    const provider = providerOver(h.ebs, {
      describeVolumes: async (ids) =>
        (await h.ebs.describeVolumes(ids)).map((volume) => (volume.ebsVolumeId === ebsVolumeId ? ({ ...volume, tags: undefined } as unknown as ProviderVolume) : volume)),
    });
    const executor = new Executor({ store: h.store, queue: h.queue, provider, clock: h.clock, metrics: h.metrics, log, config: { rateWaitMaxMs: 0 } });
    const batch = h.batchOf(h.op('attach', attachmentKey('data-1')), h.op('attach', attachmentKey('data-2')));
    const { failedMessageIds } = await executor.run(batch);

    expect(failedMessageIds).toEqual([batch[0]!.messageId]);
    expect(h.ebs.calls.AttachVolume).toBe(1);
    expect(await h.store.get(attachmentKey('data-2'))).toMatchObject({ status: { state: 'attaching' } });
    const untouched = await attachmentOf(h);
    expect(untouched).toMatchObject({ status: { state: 'pending', attempts: 0 } });
    expect(untouched?.claim).toBeUndefined();
    expect(untouched?.device).toBeUndefined();
    expect(log.entries.filter((entry) => entry.level === 'error').map((entry) => [entry.message, entry.attributes?.key])).toEqual([['operation step failed', `attachment/data-1/${INSTANCE}`]]);
  });
});
