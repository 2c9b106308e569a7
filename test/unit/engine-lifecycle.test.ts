import { describe, expect, it } from 'vitest';
import type { AttachmentRecord, VolumeRecord } from '../../lib/domain/records.js';
import { ProviderError } from '../../lib/engine/ports.js';
import { AZ, INSTANCE, attachmentKey, harness, newAttachment, newVolume, volumeKey, volumeOf, runFor } from './engine-fixtures.js';

const instanceOf = (index: number) => `i-000000000000000a${index % 4}`;

describe('lifecycle through watcher and executor', () => {
  it('100 volumes: created, attached, detached and deleted with one EC2 call each and batched describes', async () => {
    const h = harness();
    for (let n = 0; n < 4; n++) h.ebs.addInstance({ instanceId: instanceOf(n), availabilityZone: AZ, maxAttachments: 40 });
    const ids = Array.from({ length: 100 }, (_, i) => `v${i}`);
    for (const id of ids) await h.store.create(newVolume(id));
    for (const [i, id] of ids.entries()) await h.store.create(newAttachment(id, { instanceId: instanceOf(i) }));

    for (let second = 0; second < 120; second++) {
      await h.watch();
      await h.settle(1000);
    }
    const attachments = await Promise.all(ids.map((id, i) => h.store.get(attachmentKey(id, instanceOf(i)))));
    expect(attachments.filter((a) => a?.status.state === 'attached')).toHaveLength(100);
    const devices = new Set(attachments.map((a, i) => `${instanceOf(i)} ${a?.kind === 'attachment' ? a.device : ''}`));
    expect(devices.size).toBe(100);
    expect(h.ebs.calls.CreateVolume).toBe(100);
    expect(h.ebs.calls.AttachVolume).toBe(100);
    expect(h.ebs.calls.DescribeVolumes).toBeLessThan(40);
    expect(h.ebs.calls.DescribeInstances).toBeLessThan(15);

    for (const id of ids) await h.store.update<VolumeRecord>(volumeKey(id), { life: 'dying' });
    for (let second = 0; second < 200; second++) {
      await h.watch();
      await h.settle(1000);
    }
    expect(h.store.all()).toEqual([]);
    expect(h.ebs.volumes()).toEqual([]);
    expect(h.ebs.calls.DetachVolume).toBe(100);
    expect(h.ebs.calls.DeleteVolume).toBe(100);
    expect(h.queue.deadLetters()).toEqual([]);
  });

  it('a client retry after a terminal error starts over from the current state', async () => {
    const h = harness({ config: { maxAttempts: 1 } });
    await h.store.create(newVolume('data-1'));
    h.ebs.failNext('CreateVolume', new ProviderError('transient', 'InternalError', 'boom'));
    await h.watch();
    await h.settle(10_000);
    expect((await h.store.get(volumeKey('data-1')))?.status).toMatchObject({ state: 'error', code: 'InternalError' });

    await h.store.update<VolumeRecord>(volumeKey('data-1'), { generation: 2 });
    await h.watch();
    await h.settle(30_000);
    const volume = await h.store.get(volumeKey('data-1'));
    expect(volume?.status).toMatchObject({ state: 'available', attempts: 0 });
    expect(h.ebs.volumes()).toHaveLength(1);
  });

  it('a retried volume EC2 keeps creating ends in error again at the age limit, counted from the first look after the retry', async () => {
    const h = harness({ config: { maxOperationAgeMs: 60_000 }, ebsTimings: { create: 10 * 60 * 60_000 } });
    await h.store.create(newVolume('data-1'));
    await h.watch();
    await h.settle(90_000);
    await h.watch();
    expect((await h.store.get(volumeKey('data-1')))?.status).toMatchObject({ state: 'error', code: 'Timeout' });

    await h.store.update<VolumeRecord>(volumeKey('data-1'), { generation: 2 });
    await h.watch();
    await h.settle(30_000);
    await h.watch();
    expect((await h.store.get(volumeKey('data-1')))?.status).toMatchObject({ state: 'pending', message: expect.stringMatching(/^creating vol-/) });
    await h.settle(60_000);
    await h.watch();
    expect((await h.store.get(volumeKey('data-1')))?.status).toMatchObject({ state: 'error', code: 'Timeout' });
    expect(h.ebs.calls.CreateVolume).toBe(1);
  });
});

describe('a gp2 volume, whose IOPS EC2 reports though it takes no setting', () => {
  it('is observed with them and never modified for them: a grow is one ModifyVolume, and the IOPS follow the size', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1', {}, { sizeGiB: 100, volumeType: 'gp2' }));
    await h.watch();
    await h.settle(30_000);
    await h.watch();
    expect(await volumeOf(h, 'data-1')).toMatchObject({ status: { state: 'available' }, observed: { sizeGiB: 100, volumeType: 'gp2', iops: 300 } });

    const record = await volumeOf(h, 'data-1');
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { spec: { ...record.spec, sizeGiB: 200 }, generation: record.generation + 1 });
    for (let minute = 0; minute < 10; minute++) {
      await h.watch();
      await h.settle(60_000);
    }
    expect(await volumeOf(h, 'data-1')).toMatchObject({ status: { state: 'available' }, observed: { sizeGiB: 200, volumeType: 'gp2', iops: 600 } });
    expect(h.ebs.calls.ModifyVolume).toBe(1);
    expect(h.queue.deadLetters()).toEqual([]);
  });
});

describe('attachment retry after a terminal error, through watcher and executor', () => {
  const FAR_INSTANCE = 'i-0000000000000000b';
  const LATE_INSTANCE = 'i-0000000000000000c';

  const attachmentOf = async (h: ReturnType<typeof harness>, instanceId: string) =>
    (await h.store.get(attachmentKey('data-1', instanceId))) as AttachmentRecord;

  /** Runs the pipeline until the attachment is in error, noting when each failed attempt with `code` was recorded. */
  async function failedAttempts(h: ReturnType<typeof harness>, code: string): Promise<{ attempts: number; at: number }[]> {
    const seen: { attempts: number; at: number }[] = [];
    for (let i = 0; i < 600 && (await attachmentOf(h, INSTANCE)).status.state !== 'error'; i++) {
      await h.watch();
      await h.settle(1000);
      const status = (await attachmentOf(h, INSTANCE)).status;
      if (status.code === code && status.attempts !== seen.at(-1)?.attempts) seen.push({ attempts: status.attempts, at: h.clock.now() });
    }
    return seen;
  }

  /** Exponential backoff: each wait between failed attempts longer than the one before (one chain of retries, not two). */
  function expectGrowingBackoff(seen: { at: number }[]) {
    const gaps = seen.slice(1).map((s, i) => s.at - seen[i]!.at);
    for (let i = 1; i < gaps.length; i++) expect(gaps[i]!).toBeGreaterThan(gaps[i - 1]!);
  }

  it('an attach EC2 keeps refusing counts its attempts, backs off further each time and ends in error after the budget', async () => {
    const h = harness({ config: { maxAttempts: 4 } });
    h.ebs.failNext('AttachVolume', new ProviderError('limit-exceeded', 'AttachmentLimitExceeded', 'too many attachments'), 100);
    await h.store.create(newVolume('data-1'));
    await h.store.create(newAttachment('data-1'));
    const seen = await failedAttempts(h, 'AttachmentLimitExceeded');
    const failed = await attachmentOf(h, INSTANCE);
    expect(failed.status).toMatchObject({ state: 'error', code: 'AttachmentLimitExceeded', attempts: 4 });
    expect(h.ebs.calls.AttachVolume).toBe(4);
    expect(seen.map((s) => s.attempts)).toEqual([1, 2, 3, 4]);
    expectGrowingBackoff(seen);
  });

  it('an attach that keeps failing uncertainly (EC2 never attaches) counts its attempts across the checks between them and ends in error after the budget', async () => {
    const h = harness({ config: { maxAttempts: 4 } });
    h.ebs.failNext('AttachVolume', new ProviderError('transient', 'InternalError', 'An internal error has occurred'), 100);
    await h.store.create(newVolume('data-1'));
    await h.store.create(newAttachment('data-1'));
    const seen = await failedAttempts(h, 'InternalError');
    const failed = await attachmentOf(h, INSTANCE);
    expect(failed.status).toMatchObject({ state: 'error', code: 'InternalError', attempts: 4 });
    expect(failed.status.message).toContain('gave up after 4 failed attempts');
    // EC2 may have attached it after all: the device stays, so a delete detaches.
    expect(failed.device).toMatch(/^\/dev\//);
    expect(h.ebs.calls.AttachVolume).toBe(4);
    expect(seen.map((s) => s.attempts)).toEqual([1, 2, 3, 4]);
    expectGrowingBackoff(seen);

    // One more look, once a describe no longer lags the last attach, finds nothing attached: the device goes, the error stays as it was.
    await h.settle(60_000);
    expect((await attachmentOf(h, INSTANCE)).device).toBe(failed.device);
    await h.settle(90_000);
    const looked = await attachmentOf(h, INSTANCE);
    expect(looked.status).toEqual(failed.status);
    expect(looked.device).toBeUndefined();
    // Known not to be attached: a delete removes it without an EC2 call.
    await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { life: 'dying' });
    await runFor(h, 30);
    expect(await h.store.get(attachmentKey('data-1'))).toBeUndefined();
    expect(h.ebs.calls.DetachVolume).toBe(0);
    expect(h.ebs.calls.AttachVolume).toBe(4);
  });

  it('an AZ mismatch ends in error; a stale message does nothing; a retry tries afresh and fails again with attempts reset', async () => {
    const h = harness();
    h.ebs.addInstance({ instanceId: FAR_INSTANCE, availabilityZone: 'eu-west-1b' });
    await h.store.create(newVolume('data-1'));
    await h.store.create(newAttachment('data-1', { instanceId: FAR_INSTANCE }));
    await runFor(h, 60);
    const failed = await attachmentOf(h, FAR_INSTANCE);
    expect(failed.status).toMatchObject({
      state: 'error',
      code: 'InvalidVolume.ZoneMismatch',
      message: `volume is in ${AZ}, instance ${FAR_INSTANCE} in eu-west-1b`,
      attempts: 1,
    });
    expect(failed.device).toBeUndefined();
    expect(h.ebs.calls.AttachVolume).toBe(0);

    // A late attach message changes nothing: only the client's retry leaves error.
    await h.executor.run(h.batchOf(h.op('attach', attachmentKey('data-1', FAR_INSTANCE))));
    expect((await attachmentOf(h, FAR_INSTANCE)).status).toEqual(failed.status);

    await h.clock.advance(60_000);
    h.changes.length = 0;
    await h.store.update<AttachmentRecord>(attachmentKey('data-1', FAR_INSTANCE), { generation: 2 });
    const retryChanges = [...h.changes];
    await h.watch();
    expect((await attachmentOf(h, FAR_INSTANCE)).status).toMatchObject({ state: 'pending', attempts: 0, message: 'retry requested' });
    expect((await attachmentOf(h, FAR_INSTANCE)).status.code).toBeUndefined();

    await runFor(h, 30);
    const again = await attachmentOf(h, FAR_INSTANCE);
    expect(again.status).toMatchObject({ state: 'error', code: 'InvalidVolume.ZoneMismatch', attempts: 1 });
    expect(Date.parse(again.status.updatedAt)).toBeGreaterThan(Date.parse(failed.status.updatedAt));
    expect(again.generation).toBe(2);
    expect(h.ebs.calls.AttachVolume).toBe(0);

    // The retry's change delivered again, late (a stream batch retried): that retry was made; the record stays in error.
    await h.clock.advance(60_000);
    await h.watcher.handle(retryChanges);
    await h.drain();
    expect(await attachmentOf(h, FAR_INSTANCE)).toEqual(again);
  });

  it('a late copy of a spec change made before the volume failed asks for no retry: the volume stays in error', async () => {
    const h = harness({ config: { maxAttempts: 1 } });
    await h.store.create(newVolume('data-1'));
    await runFor(h, 30);
    expect((await volumeOf(h)).status.state).toBe('available');
    h.changes.length = 0;
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { spec: { ...(await volumeOf(h)).spec, sizeGiB: 20 }, generation: 2 });
    const growChanges = [...h.changes];
    h.ebs.failNext('ModifyVolume', new ProviderError('invalid-request', 'InvalidParameterValue', 'bad parameter'));
    await runFor(h, 30);
    const failed = await volumeOf(h);
    expect(failed.status).toMatchObject({ state: 'error', code: 'InvalidParameterValue' });
    expect(h.ebs.calls.ModifyVolume).toBe(1);

    await h.watcher.handle(growChanges);
    await h.drain();
    expect(await volumeOf(h)).toEqual(failed);
    expect(h.ebs.calls.ModifyVolume).toBe(1);
  });

  it('a volume retried after an error, failing again, is not retried once more by a late copy of the retry change', async () => {
    const h = harness({ config: { maxAttempts: 1 } });
    h.ebs.failNext('CreateVolume', new ProviderError('invalid-request', 'InvalidParameterValue', 'bad parameter'));
    await h.store.create(newVolume('data-1'));
    await runFor(h, 30);
    expect((await volumeOf(h)).status).toMatchObject({ state: 'error', code: 'InvalidParameterValue' });

    h.ebs.failNext('CreateVolume', new ProviderError('invalid-request', 'InvalidParameterValue', 'bad parameter'));
    h.changes.length = 0;
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { generation: 2 });
    const retryChanges = [...h.changes];
    await runFor(h, 30);
    const again = await volumeOf(h);
    expect(again.status).toMatchObject({ state: 'error', code: 'InvalidParameterValue', attempts: 1 });
    expect(h.ebs.calls.CreateVolume).toBe(2);

    await h.watcher.handle(retryChanges);
    await h.drain();
    expect(await volumeOf(h)).toEqual(again);
    expect(h.ebs.calls.CreateVolume).toBe(2);

    // The client's next retry is one.
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { generation: 3 });
    await runFor(h, 30);
    expect(await volumeOf(h)).toMatchObject({ status: { state: 'available' } });
    expect(h.ebs.calls.CreateVolume).toBe(3);
  });

  it('an instance that never appears spends the budget; once it exists a retry (delivered twice) attaches once', async () => {
    const h = harness({ config: { maxAttempts: 3 } });
    await h.store.create(newVolume('data-1'));
    // Written without a generation, as records from before attachments had one.
    await h.store.create(newAttachment('data-1', { instanceId: LATE_INSTANCE }));
    await runFor(h, 120);
    expect((await attachmentOf(h, LATE_INSTANCE)).status).toMatchObject({ state: 'error', code: 'InvalidInstanceID.NotFound', attempts: 3 });

    h.ebs.addInstance({ instanceId: LATE_INSTANCE, availabilityZone: AZ });
    h.changes.length = 0;
    await h.store.update<AttachmentRecord>(attachmentKey('data-1', LATE_INSTANCE), { generation: 2 });
    const retryChanges = [...h.changes];
    await h.watch();
    await h.watcher.handle(retryChanges);
    await runFor(h, 60);

    const attached = await attachmentOf(h, LATE_INSTANCE);
    expect(attached.status).toMatchObject({ state: 'attached', attempts: 0 });
    expect(attached.status.code).toBeUndefined();
    expect(attached.device).toMatch(/^\/dev\//);
    expect(h.ebs.calls.AttachVolume).toBe(1);
    expect((await h.store.get(volumeKey('data-1')))?.status.state).toBe('in-use');
    expect(h.queue.deadLetters()).toEqual([]);
  });

  it('an attach that timed out but finished later is adopted on retry, with no second AttachVolume', async () => {
    const h = harness({ config: { maxOperationAgeMs: 60_000 }, ebsTimings: { attach: 300_000 } });
    await h.store.create(newVolume('data-1'));
    await h.store.create(newAttachment('data-1'));
    await runFor(h, 120);
    const timedOut = await attachmentOf(h, INSTANCE);
    expect(timedOut.status).toMatchObject({ state: 'error', code: 'Timeout' });
    expect(timedOut.device).toMatch(/^\/dev\//);

    await h.clock.advance(300_000);
    await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { generation: 2 });
    await runFor(h, 30);
    expect((await attachmentOf(h, INSTANCE)).status).toMatchObject({ state: 'attached', attempts: 0 });
    expect((await attachmentOf(h, INSTANCE)).device).toBe(timedOut.device);
    expect(h.ebs.calls.AttachVolume).toBe(1);
    expect((await h.store.get(volumeKey('data-1')))?.status.state).toBe('in-use');
  });

  it('a retried attachment that kept its device but is not attached in EC2 attaches afresh', async () => {
    let attaches = 0;
    const h = harness({ config: { maxOperationAgeMs: 60_000 }, ebsTimings: { attach: () => (attaches++ === 0 ? 300_000 : 5_000) } });
    await h.store.create(newVolume('data-1'));
    await h.store.create(newAttachment('data-1'));
    await runFor(h, 120);
    const timedOut = await attachmentOf(h, INSTANCE);
    expect(timedOut.status.state).toBe('error');
    // Someone detaches it in the console meanwhile.
    const ebsVolumeId = ((await h.store.get(volumeKey('data-1'))) as VolumeRecord).ebsVolumeId!;
    await h.ebs.detachVolume({ ebsVolumeId, instanceId: INSTANCE, device: timedOut.device! });
    await h.clock.advance(300_000);
    expect(h.ebs.volume(ebsVolumeId)?.attachments).toEqual([]);

    await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { generation: 2 });
    await runFor(h, 30);
    expect(h.ebs.calls.AttachVolume).toBe(2);
    expect((await attachmentOf(h, INSTANCE)).status).toMatchObject({ state: 'attached', attempts: 0 });
    expect(h.ebs.volume(ebsVolumeId)?.attachments.map((a) => a.instanceId)).toEqual([INSTANCE]);
  });

  /** Runs the pipeline a second at a time until `done` holds for the attachment (a bounded number of seconds). */
  async function runUntil(h: ReturnType<typeof harness>, done: (attachment: AttachmentRecord) => boolean, seconds = 20) {
    for (let i = 0; i < seconds && !done(await attachmentOf(h, INSTANCE)); i++) {
      await h.watch();
      await h.settle(1000);
    }
  }

  /** The client deletes the attachment: it is detached in EC2 once, and only then removed. */
  async function expectDeleteDetaches(h: ReturnType<typeof harness>) {
    // The states the attachment is written in from here: it goes through detaching, its failure cleared.
    const written: AttachmentRecord['status'][] = [];
    const stop = h.store.onChange((change) => {
      if (change.newRecord?.kind === 'attachment') written.push(change.newRecord.status);
    });
    await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { life: 'dying' });
    await runFor(h, 60);
    stop();
    const detaching = written.find((status) => status.state === 'detaching');
    expect(detaching).toBeDefined();
    expect(detaching!.code).toBeUndefined();
    expect(written.at(-1)!.state).toBe('detaching');
    expect(await h.store.get(attachmentKey('data-1'))).toBeUndefined();
    expect(h.ebs.calls.DetachVolume).toBe(1);
    const ebsVolumeId = ((await h.store.get(volumeKey('data-1'))) as VolumeRecord).ebsVolumeId!;
    expect(h.ebs.volume(ebsVolumeId)?.attachments).toEqual([]);
  }

  it('a retried attachment that may be attached and is then made dying is detached, not dropped', async () => {
    const h = harness({ config: { maxOperationAgeMs: 60_000 }, ebsTimings: { attach: 300_000 } });
    await h.store.create(newVolume('data-1'));
    await h.store.create(newAttachment('data-1'));
    await runFor(h, 120);
    expect((await attachmentOf(h, INSTANCE)).status.state).toBe('error');
    await h.clock.advance(300_000);

    await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { generation: 2 });
    await h.watch();
    await expectDeleteDetaches(h);
  });

  /** AttachVolume takes effect in EC2 but its answer is lost (timeout) the first `times` times. */
  function loseAttachAnswers(h: ReturnType<typeof harness>, error: ProviderError, times = 1) {
    const attach = h.ebs.attachVolume.bind(h.ebs);
    let lost = 0;
    h.ebs.attachVolume = async (request) => {
      await attach(request);
      if (lost++ < times) throw error;
    };
  }

  it('an attach whose answer was lost keeps its device, so a delete right after it detaches in EC2 rather than dropping the record', async () => {
    const h = harness();
    loseAttachAnswers(h, new ProviderError('transient', 'RequestTimeout', 'Request timed out'));
    await h.store.create(newVolume('data-1'));
    await h.store.create(newAttachment('data-1'));
    await runUntil(h, (a) => a.status.code === 'RequestTimeout');
    const lost = await attachmentOf(h, INSTANCE);
    expect(lost.status).toMatchObject({ state: 'pending', code: 'RequestTimeout', attempts: 1 });
    expect(lost.device).toMatch(/^\/dev\//);
    const ebsVolumeId = ((await h.store.get(volumeKey('data-1'))) as VolumeRecord).ebsVolumeId!;
    expect(h.ebs.volume(ebsVolumeId)?.attachments.map((a) => a.instanceId)).toEqual([INSTANCE]);

    await expectDeleteDetaches(h);
  });

  it('an attach whose answer was lost is adopted by the check that follows, with no second AttachVolume', async () => {
    const h = harness();
    loseAttachAnswers(h, new ProviderError('transient', 'InternalError', 'An internal error has occurred'));
    await h.store.create(newVolume('data-1'));
    await h.store.create(newAttachment('data-1'));
    await runFor(h, 60);
    const attached = await attachmentOf(h, INSTANCE);
    expect(attached.status).toMatchObject({ state: 'attached', attempts: 0 });
    expect(h.ebs.calls.AttachVolume).toBe(1);
    expect((await h.store.get(volumeKey('data-1')))?.status.state).toBe('in-use');
  });

  it('an attach whose answer was lost and that EC2 never finishes ends in error at the age limit, keeping its device', async () => {
    const h = harness({ config: { maxOperationAgeMs: 10 * 60_000 }, ebsTimings: { attach: 10 * 3_600_000 } });
    loseAttachAnswers(h, new ProviderError('transient', 'RequestTimeout', 'Request timed out'));
    await h.store.create(newVolume('data-1'));
    await h.store.create(newAttachment('data-1'));
    await runUntil(h, (a) => a.status.message?.startsWith('EC2 is attaching') === true);
    const started = (await attachmentOf(h, INSTANCE)).status.operationStartedAt;
    expect((await attachmentOf(h, INSTANCE)).status).toMatchObject({ state: 'pending', attempts: 1, operationStartedAt: expect.any(String) });
    await runUntil(h, (a) => a.status.state === 'error', 30 * 60);
    const failed = await attachmentOf(h, INSTANCE);
    expect(failed.status).toMatchObject({ state: 'error', code: 'Timeout', operationStartedAt: started, message: expect.stringContaining('EC2 is attaching') });
    expect(h.clock.now() - Date.parse(started!)).toBeLessThan(15 * 60_000);
    expect(failed.device).toMatch(/^\/dev\//);
    expect(h.ebs.calls.AttachVolume).toBe(1);
  });

  it('an attachment that kept its device goes as soon as a new volume is available, after its volume vanished and was retried', async () => {
    const h = harness();
    h.ebs.failNext('AttachVolume', new ProviderError('transient', 'InternalError', 'An internal error has occurred'));
    await h.store.create(newVolume('data-1'));
    await h.store.create(newAttachment('data-1'));
    await runUntil(h, (a) => a.status.code === 'InternalError');
    const { device } = await attachmentOf(h, INSTANCE);
    expect(device).toMatch(/^\/dev\//);
    // The volume is deleted outside the system before the attachment looks again; a check of the volume finds it gone.
    const gone = ((await h.store.get(volumeKey('data-1'))) as VolumeRecord).ebsVolumeId!;
    h.ebs.deleteBehindBack(gone);
    await h.executor.run(h.batchOf(h.op('check-volume', volumeKey('data-1'))));
    expect((await h.store.get(volumeKey('data-1')))?.status).toMatchObject({ state: 'error', code: 'InvalidVolume.NotFound' });
    await h.watch();
    await h.settle(60_000);
    const waiting = await attachmentOf(h, INSTANCE);
    expect(waiting.status).toMatchObject({ state: 'pending', message: 'volume data-1 is in error: InvalidVolume.NotFound; the attach waits until the volume is retried' });
    expect(waiting.device).toBe(device);

    // The client retries the volume: a new one is created, and the attachment goes once it is available.
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { generation: 2 });
    for (let i = 0; i < 60 && (await h.store.get(volumeKey('data-1')))?.status.state !== 'available'; i++) {
      await h.watch();
      await h.settle(1000);
    }
    // The stream brings the volume's changes to the watcher twice: the attachment is still attached once.
    const volumeChanges = h.changes.filter((change) => change.key.kind === 'volume');
    await h.watch();
    await h.watcher.handle(volumeChanges);
    await h.settle(10_000);
    const attached = await attachmentOf(h, INSTANCE);
    expect(attached.status).toMatchObject({ state: 'attached', attempts: 0 });
    expect(attached.device).toBe(device);
    const ebsVolumeId = ((await h.store.get(volumeKey('data-1'))) as VolumeRecord).ebsVolumeId!;
    expect(ebsVolumeId).not.toBe(gone);
    expect(h.ebs.volume(ebsVolumeId)?.attachments.map((a) => [a.instanceId, a.device])).toEqual([[INSTANCE, device]]);
    expect(h.ebs.calls.AttachVolume).toBe(2);
  });

  it('an attached volume that failed, was deleted outside and retried is created again and attached again: the attachment does not keep saying attached', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await h.store.create(newAttachment('data-1'));
    await runUntil(h, (a) => a.status.state === 'attached');
    const gone = ((await h.store.get(volumeKey('data-1'))) as VolumeRecord).ebsVolumeId!;
    // EBS fails the volume; an operator deletes it in the console and retries the record.
    h.ebs.failVolume(gone);
    await h.executor.run(h.batchOf(h.op('check-volume', volumeKey('data-1'))));
    await h.watch();
    await h.settle(10_000);
    expect((await volumeOf(h)).status.state).toBe('error');
    h.ebs.deleteBehindBack(gone);
    await h.clock.advance(5 * 60_000);
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { generation: 2 });
    for (let i = 0; i < 120; i++) {
      await h.watch();
      await h.settle(1000);
    }
    const volume = await volumeOf(h);
    expect(volume.status.state).toBe('in-use');
    expect(volume.ebsVolumeId).not.toBe(gone);
    expect(h.ebs.volume(volume.ebsVolumeId!)?.attachments.map((a) => [a.instanceId, a.state])).toEqual([[INSTANCE, 'attached']]);
    expect((await attachmentOf(h, INSTANCE)).status).toMatchObject({ state: 'attached', attempts: 0 });
    expect(h.ebs.calls.AttachVolume).toBe(2);
  });

  it('an attach EC2 refused forgets its device: a dying attachment is then removed without an EC2 call', async () => {
    const h = harness();
    h.ebs.failNext('AttachVolume', new ProviderError('limit-exceeded', 'AttachmentLimitExceeded', 'too many attachments'));
    await h.store.create(newVolume('data-1'));
    await h.store.create(newAttachment('data-1'));
    await runUntil(h, (a) => a.status.code === 'AttachmentLimitExceeded');
    const refused = await attachmentOf(h, INSTANCE);
    expect(refused.status).toMatchObject({ state: 'pending', code: 'AttachmentLimitExceeded' });
    expect(refused.device).toBeUndefined();
    await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { life: 'dying' });
    await runFor(h, 30);
    expect(await h.store.get(attachmentKey('data-1'))).toBeUndefined();
    expect(h.ebs.calls.DetachVolume).toBe(0);
  });

  /** An attach whose one attempt EC2 made but whose answer was lost: the attachment ends in error keeping its device. */
  async function givenUpOnLostAnswer() {
    const h = harness({ config: { maxAttempts: 1 } });
    loseAttachAnswers(h, new ProviderError('transient', 'RequestTimeout', 'Request timed out'));
    await h.store.create(newVolume('data-1'));
    await h.store.create(newAttachment('data-1'));
    await runUntil(h, (a) => a.status.state === 'error');
    const failed = await attachmentOf(h, INSTANCE);
    expect(failed.status).toMatchObject({ state: 'error', code: 'RequestTimeout' });
    expect(failed.device).toMatch(/^\/dev\//);
    return { h, failed };
  }

  it('an attach that runs out of attempts on a lost answer keeps its device in error; deleting it detaches in EC2', async () => {
    const { h } = await givenUpOnLostAnswer();
    await expectDeleteDetaches(h);
  });

  it('an attach that runs out of attempts on a lost answer EC2 acted on is found attached by the look that follows, with no second AttachVolume', async () => {
    const { h, failed } = await givenUpOnLostAnswer();
    await runFor(h, 180);
    const attached = await attachmentOf(h, INSTANCE);
    expect(attached.status).toMatchObject({ state: 'attached', attempts: 0, message: 'EC2 made the attach after it was given up on' });
    expect(attached.status.code).toBeUndefined();
    expect(attached.device).toBe(failed.device);
    expect((await h.store.get(volumeKey('data-1')))?.status.state).toBe('in-use');
    expect(h.ebs.calls.AttachVolume).toBe(1);
    expect(h.queue.deadLetters()).toEqual([]);
  });

  it('a generation bump outside error, or on a dying attachment, is not a retry', async () => {
    const h = harness();
    h.ebs.addInstance({ instanceId: FAR_INSTANCE, availabilityZone: 'eu-west-1b' });
    await h.store.create(newVolume('data-1'));
    await h.store.create(newAttachment('data-1'));
    await h.store.create(newAttachment('data-1', { instanceId: FAR_INSTANCE }));
    await runFor(h, 60);
    expect((await attachmentOf(h, INSTANCE)).status.state).toBe('attached');
    expect((await attachmentOf(h, FAR_INSTANCE)).status.state).toBe('error');

    await h.store.update<AttachmentRecord>(attachmentKey('data-1', INSTANCE), { generation: 2 });
    await h.store.update<AttachmentRecord>(attachmentKey('data-1', FAR_INSTANCE), { generation: 2, life: 'dying' });
    await runFor(h, 30);
    expect((await attachmentOf(h, INSTANCE)).status).toMatchObject({ state: 'attached', attempts: 0 });
    // Never attached: the dying attachment in error is removed without any EC2 call.
    expect(await h.store.get(attachmentKey('data-1', FAR_INSTANCE))).toBeUndefined();
    expect(h.ebs.calls.AttachVolume).toBe(1);
    expect(h.ebs.calls.DetachVolume).toBe(0);
  });
});

describe('an attachment whose volume was deleted outside the system, through watcher and executor', () => {
  async function run(h: ReturnType<typeof harness>, seconds: number, until?: () => Promise<boolean>) {
    for (let i = 0; i < seconds && !(await until?.()); i++) {
      await h.watch();
      await h.settle(1000);
    }
    await h.watch();
  }
  const volumeOf = async (h: ReturnType<typeof harness>) => (await h.store.get(volumeKey('data-1'))) as VolumeRecord;
  const attachmentOf = async (h: ReturnType<typeof harness>) => (await h.store.get(attachmentKey('data-1'))) as AttachmentRecord;

  /** Volume data-1 available, then deleted in the console; an attachment asked for after that. */
  async function attachToVanishedVolume(maxAttempts: number) {
    const h = harness({ config: { maxAttempts } });
    await h.store.create(newVolume('data-1'));
    await run(h, 10);
    const created = await volumeOf(h);
    expect(created.status.state).toBe('available');
    h.ebs.deleteBehindBack(created.ebsVolumeId!);
    await h.store.create(newAttachment('data-1'));
    await run(h, 30, async () => (await volumeOf(h)).status.state === 'error');
    await run(h, 2);
    return h;
  }

  it('an attach EC2 answers with the volume not found has the volume checked at once: the record says the volume is gone and the attach waits for its retry', async () => {
    const h = await attachToVanishedVolume(3);
    expect((await volumeOf(h)).status).toMatchObject({ state: 'error', message: expect.stringContaining('no longer exists in EC2') });
    expect((await attachmentOf(h)).status).toMatchObject({ state: 'pending', message: expect.stringContaining('waits until the volume is retried') });
    expect(h.ebs.calls.AttachVolume).toBe(1);
  });

  it('the attach starts with a fresh attempt budget once the volume is retried: what it failed against the vanished volume no longer counts', async () => {
    const h = await attachToVanishedVolume(2);
    expect((await attachmentOf(h)).status).toMatchObject({ state: 'pending', attempts: 0 });

    // The client retries the volume: a new one is created; the first attach to it fails once, uncertainly.
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { generation: 2 });
    h.ebs.failNext('AttachVolume', new ProviderError('transient', 'InternalError', 'An internal error has occurred'));
    await run(h, 120);
    expect((await attachmentOf(h)).status).toMatchObject({ state: 'attached', attempts: 0 });
    const volume = await volumeOf(h);
    expect(h.ebs.volume(volume.ebsVolumeId!)?.attachments).toMatchObject([{ instanceId: INSTANCE, state: 'attached' }]);
    expect(h.ebs.calls.AttachVolume).toBe(3);
  });
});
