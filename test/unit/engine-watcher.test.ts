import { describe, expect, it } from 'vitest';
import { MAX_PATH_KEY_CHARS } from '../../lib/domain/validation.js';
import { newAttachmentRecord } from '../../lib/api/service.js';
import { ItemTooLargeError, ProviderError } from '../../lib/engine/ports.js';
import { type RecordChange } from '../../lib/engine/watcher.js';
import { RECORD_TOO_LARGE_LOG } from '../../lib/engine/rejection.js';
import { RecordingLog } from '../../lib/memory/log.js';
import { approximateItemBytes } from '../../lib/memory/store.js';
import { OWNERSHIP_TAGS, TABLE } from '../../lib/settings.js';
import type { AttachmentRecord, VolumeRecord } from '../../lib/domain/records.js';
import { AZ, INSTANCE, OTHER_INSTANCE, attachmentKey, data1Created, harness, newAttachment, newVolume, settleAll, volumeKey } from './engine-fixtures.js';
import { insert, modify, remove } from './watcher-fixtures.js';

function sent(h: ReturnType<typeof harness>) {
  return h.queued();
}

/** A harness holding volume data-1, created and attached to INSTANCE through the watcher and executor. */
async function attachedVolume(): Promise<ReturnType<typeof harness>> {
  const h = harness();
  await h.store.create(newVolume('data-1'));
  await h.store.create(newAttachment('data-1'));
  await h.watch();
  await h.settle(30_000);
  await h.watch();
  await h.settle(30_000);
  expect((await h.store.get(attachmentKey('data-1')))?.status.state).toBe('attached');
  return h;
}

/** Volume data-1 created and available, every change it made seen by the watcher. */
async function createdVolume(h: ReturnType<typeof harness>): Promise<void> {
  await data1Created(h);
}

/** A volume record written straight into the table with only the client's fields (`fields`), run until the pipeline is done with it. */
async function createdFromClientFields(h: ReturnType<typeof harness>, fields: Partial<VolumeRecord>): Promise<void> {
  h.store.putRaw(fields);
  for (let i = 0; i < 6; i++) {
    await h.watch();
    await h.settle(5000);
  }
}

describe('watcher', () => {
  it('a new volume record enqueues its creation at once', async () => {
    const h = harness();
    const volume = newVolume('data-1');
    await h.store.create(volume);
    expect(await h.watcher.handle([insert(volume)])).toEqual({ failedChangeIds: [] });
    expect(sent(h)).toEqual([{ op: 'create-volume', key: 'data-1', delaySeconds: 0 }]);
  });

  it('an invalid record gets status error with the reasons and no operation', async () => {
    const h = harness();
    const raw = { ...newVolume('data-1'), spec: { sizeGiB: -5, volumeType: 'gp9' } };
    h.store.putRaw(raw);
    await h.watcher.handle([insert(raw as never)]);
    expect(sent(h)).toEqual([]);
    const record = await h.store.get(volumeKey('data-1'));
    expect(record?.status).toMatchObject({ state: 'error', code: 'InvalidRecord' });
    expect(record?.status.message).toMatch(/spec\.(sizeGiB|volumeType)/);
    expect(h.metrics.counter('InvalidRecords')).toBe(1);
    // Its own status write comes back as a change: nothing more happens.
    const version = record!.version;
    await h.watcher.handle([modify(raw, record, 'c2')]);
    expect((await h.store.get(volumeKey('data-1')))!.version).toBe(version);
    // Counted once: the alarm's metric counts records rejected, not deliveries.
    await h.watcher.handle([insert(raw as never)]);
    expect(h.metrics.counter('InvalidRecords')).toBe(1);
  });

  it('a record in the table with an invalid tag key holding "." names it bracketed and quoted, a long one by its start and its end', async () => {
    const h = harness();
    const raw = newVolume('data-1', {}, { tags: { 'aws:team.name': 'v' } });
    h.store.putRaw(raw);
    await h.watcher.handle([insert(raw as never)]);
    expect(sent(h)).toEqual([]);
    expect((await h.store.get(volumeKey('data-1')))?.status.message).toBe('spec.tags["aws:team.name"]: tag keys starting with "aws:" are reserved');
    const long = newVolume('data-2', {}, { tags: { [`aws:${'k'.repeat(10_000)}`]: 'v' } });
    const shownKey = `aws:${'k'.repeat(MAX_PATH_KEY_CHARS / 2 - 5)}…${'k'.repeat(MAX_PATH_KEY_CHARS / 2)}`;
    h.store.putRaw(long);
    await h.watcher.handle([insert(long as never)]);
    expect((await h.store.get(volumeKey('data-2')))?.status.message).toBe(
      `spec.tags["${shownKey}"]: tag key must be 1–127 characters, got 10004; spec.tags["${shownKey}"]: tag keys starting with "aws:" are reserved`,
    );
  });

  it('a record in the table with a tag key of 128 characters (EC2 takes 127) is rejected with the reason, and no operation', async () => {
    const h = harness();
    const key = 'k'.repeat(128);
    const raw = newVolume('data-1', {}, { tags: { [key]: 'v' } });
    h.store.putRaw(raw);
    await h.watcher.handle([insert(raw as never)]);
    expect(sent(h)).toEqual([]);
    const record = await h.store.get(volumeKey('data-1'));
    expect(record?.status).toMatchObject({ state: 'error', code: 'InvalidRecord' });
    expect(record?.status.message).toBe(`spec.tags.${key}: tag key must be 1–127 characters, got 128`);
    // Dying (asked for before keys were held to 127), it is deleted all the same: its tags no longer matter.
    const dying = newVolume('data-2', { life: 'dying' }, { tags: { [key]: 'v' } });
    h.store.putRaw(dying);
    await h.watcher.handle([insert(dying)]);
    // Never created (no EC2 call made for it), it is removed at once.
    expect(await h.store.get(volumeKey('data-2'))).toBeUndefined();
  });

  it('an attachment in the table asking for a device EC2 refuses (/dev/xvdea, /dev/xvddy) is rejected with the reason and no EC2 call; /dev/xvddx attaches', async () => {
    const h = harness();
    await createdVolume(h);
    const callsBefore = { ...h.ebs.calls };
    for (const [instanceId, device] of [[INSTANCE, '/dev/xvdea'], [OTHER_INSTANCE, '/dev/xvddy']] as const) {
      const raw = newAttachment('data-1', { instanceId, requestedDevice: device });
      h.store.putRaw(raw);
      await h.watcher.handle([insert(raw)]);
      const record = await h.store.get(attachmentKey('data-1', instanceId));
      expect(record?.status).toMatchObject({ state: 'error', code: 'InvalidRecord' });
      expect(record?.status.message).toBe(
        'requestedDevice: must be a device name EC2 takes for a volume: /dev/sd[b-z], /dev/xvd[b-z], /dev/xvd[a-c][a-z] or /dev/xvdd[a-x], like /dev/sdf or /dev/xvdba',
      );
    }
    expect(sent(h)).toEqual([]);
    await settleAll(h);
    expect(h.ebs.calls).toEqual(callsBefore);
    // Put right in the table (the last two-letter name EC2 takes), it is taken up and attached.
    await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { requestedDevice: '/dev/xvddx' });
    await settleAll(h);
    expect(await h.store.get(attachmentKey('data-1'))).toMatchObject({ status: { state: 'attached' }, device: '/dev/xvddx' });
  });

  it('a dying attachment asking for a device EC2 refuses (asked for before names were held to EC2\'s) is still detached and removed', async () => {
    const h = harness();
    await createdVolume(h);
    const { ebsVolumeId } = (await h.store.get(volumeKey('data-1'))) as VolumeRecord;
    // Attached under that name, as the record says.
    await h.ebs.attachVolume({ ebsVolumeId: ebsVolumeId!, instanceId: INSTANCE, device: '/dev/xvdea' });
    await h.clock.advance(30_000);
    const attached = { state: 'attached' as const, attempts: 0, updatedAt: new Date(h.clock.now()).toISOString() };
    h.store.putRaw(newAttachment('data-1', { life: 'dying', requestedDevice: '/dev/xvdea', device: '/dev/xvdea', status: attached }));
    await settleAll(h);
    expect(h.ebs.calls.DetachVolume).toBe(1);
    expect(await h.store.get(attachmentKey('data-1'))).toBeUndefined();
    expect((await h.ebs.describeVolumes([ebsVolumeId!]))[0]).toMatchObject({ state: 'available', attachments: [] });
  });

  it('a volume deleted with a live attachment rejected for its device (EC2 refuses it) makes it dying, detaches it and is deleted', async () => {
    const h = harness();
    await createdVolume(h);
    const { ebsVolumeId } = (await h.store.get(volumeKey('data-1'))) as VolumeRecord;
    await h.ebs.attachVolume({ ebsVolumeId: ebsVolumeId!, instanceId: INSTANCE, device: '/dev/xvdzz' });
    await h.clock.advance(30_000);
    const attached = { state: 'attached' as const, attempts: 0, updatedAt: new Date(h.clock.now()).toISOString() };
    h.store.putRaw(newAttachment('data-1', { requestedDevice: '/dev/xvdzz', device: '/dev/xvdzz', status: attached }));
    await h.watch();
    expect((await h.store.get(attachmentKey('data-1')))?.status).toMatchObject({ state: 'error', code: 'InvalidRecord' });
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'dying' });
    await settleAll(h);
    expect(h.ebs.calls.DetachVolume).toBe(1);
    expect(await h.store.get(attachmentKey('data-1'))).toBeUndefined();
    expect(await h.store.get(volumeKey('data-1'))).toBeUndefined();
    expect(h.ebs.calls.DeleteVolume).toBe(1);
  });

  it('a record written straight into the table with only the client\'s fields (no status, version or createdAt) is created', async () => {
    const h = harness();
    const { kind, volumeId, spec, life, generation } = newVolume('data-1');
    await createdFromClientFields(h, { kind, volumeId, spec, life, generation });
    const record = await h.store.get(volumeKey('data-1'));
    expect(record).toMatchObject({ status: { state: 'available' }, ebsVolumeId: expect.any(String) });
    expect(h.ebs.calls.CreateVolume).toBe(1);
  });

  it("a record written straight into the table without createdAt is retried when its client bumps its generation: the bump is the record's own, not one of a record removed before", async () => {
    const h = harness();
    const { kind, volumeId, spec, life, generation } = newVolume('data-1');
    h.store.putRaw({ kind, volumeId, spec, life, generation });
    h.ebs.failNext('CreateVolume', new ProviderError('invalid-request', 'InvalidParameterValue', 'The parameter is not valid'));
    await h.watch();
    await h.drain();
    await h.watch();
    expect((await h.store.get(volumeKey('data-1')))?.status).toMatchObject({ state: 'error', code: 'InvalidParameterValue' });

    await h.store.update<VolumeRecord>(volumeKey('data-1'), { generation: 2 });
    await h.watch();
    expect((await h.store.get(volumeKey('data-1')))?.status).toMatchObject({ state: 'pending', attempts: 0 });
    expect(sent(h)).toEqual([{ op: 'create-volume', key: 'data-1', delaySeconds: 0 }]);
  });

  it("a record written straight into the table without createdAt, deleted by its client after a failed tag change, has that failure dropped: the delete starts its own attempts", async () => {
    const h = harness();
    const { kind, volumeId, spec, life, generation } = newVolume('data-1');
    await createdFromClientFields(h, { kind, volumeId, spec, life, generation });
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { spec: { ...spec, tags: { team: 'b' } }, generation: 2 });
    h.ebs.failNext('CreateTags', new ProviderError('transient', 'InternalError', 'An internal error has occurred'));
    await h.watch();
    await h.drain();
    expect((await h.store.get(volumeKey('data-1')))?.status).toMatchObject({ state: 'available', code: 'InternalError', attempts: 1 });

    h.changes.splice(0);
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'dying' });
    await h.watcher.handle(h.changes.splice(0));
    const status = (await h.store.get(volumeKey('data-1')))!.status;
    expect(status).toMatchObject({ state: 'available', attempts: 0 });
    expect(status.nextAttemptAt).toBeUndefined();
  });

  it('a record written straight into the table without version or createdAt in a state of an operation under way gets a check of its own: no chain of checks runs on it yet', async () => {
    const h = harness();
    const at = new Date(h.clock.now()).toISOString();
    const { kind, volumeId, spec, life, generation } = newVolume('data-1');
    h.store.putRaw({ kind, volumeId, spec, life, generation, ebsVolumeId: 'vol-0123456789abcdef0', status: { state: 'modifying', attempts: 0, updatedAt: at, operationStartedAt: at } });
    await h.watch();
    const messages = h.queue.pending().map((pending) => pending.message);
    expect(messages).toEqual([expect.objectContaining({ op: 'check-volume' })]);
    expect(messages[0]!.nudge).toBeUndefined();
  });

  it('an invalid record fixed by its client while the watcher judged it keeps the fix: the rejection is written only over what was judged', async () => {
    const h = harness();
    const raw = { ...newVolume('data-1'), spec: { sizeGiB: -5, volumeType: 'gp3' } };
    h.store.putRaw(raw);
    // The client writes a valid spec between the watcher's read and its rejection.
    const get = h.store.get.bind(h.store);
    h.store.get = async (key) => {
      const read = await get(key);
      h.store.get = get;
      await h.store.update<VolumeRecord>(volumeKey('data-1'), { spec: newVolume('data-1').spec, generation: 2 });
      return read;
    };
    h.changes.length = 0;
    await h.watcher.handle([insert(raw as never)]);
    const fixed = await h.store.get(volumeKey('data-1'));
    expect(fixed?.status.state).toBe('pending');
    expect(h.metrics.counter('InvalidRecords')).toBe(0);
    // Its own change plans it.
    await h.watch();
    await h.settle(10_000);
    await h.watch();
    expect(await h.store.get(volumeKey('data-1'))).toMatchObject({ status: { state: 'available' } });
  });

  it('leaves an attachment alone while its volume record is invalid, and attaches it once the record is put right', async () => {
    const h = harness();
    const raw = { ...newVolume('data-1'), spec: { sizeGiB: -5, volumeType: 'gp3' } };
    h.store.putRaw(raw);
    await h.watch();
    await h.store.create(newAttachment('data-1'));
    const before = await h.store.get(attachmentKey('data-1'));
    await h.watch();
    await h.drain();
    expect(await h.store.get(attachmentKey('data-1'))).toEqual(before);
    expect(h.ebs.calls.AttachVolume).toBe(0);

    await h.store.update<VolumeRecord>(volumeKey('data-1'), { spec: newVolume('data-1').spec, generation: 2 });
    for (let i = 0; i < 6; i++) {
      await h.watch();
      await h.settle(5000);
    }
    expect(await h.store.get(attachmentKey('data-1'))).toMatchObject({ status: { state: 'attached' } });
  });

  it('a record rejected as invalid and put right by its client without a new generation is taken up', async () => {
    const h = harness();
    const raw = { ...newVolume('data-1'), spec: { sizeGiB: -5, volumeType: 'gp3' } };
    h.store.putRaw(raw);
    await h.watch();
    expect((await h.store.get(volumeKey('data-1')))?.status).toMatchObject({ state: 'error', code: 'InvalidRecord' });
    // Put right straight in the table, generation unchanged.
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { spec: newVolume('data-1').spec });
    for (let i = 0; i < 4; i++) {
      await h.watch();
      await h.settle(5000);
    }
    expect(await h.store.get(volumeKey('data-1'))).toMatchObject({ status: { state: 'available' }, ebsVolumeId: expect.any(String) });
  });

  it('rejects a record written straight into the table with a version that is no number, numbering it afresh', async () => {
    for (const version of ['abc', null]) {
      const h = harness();
      const raw = { ...newVolume('data-1'), spec: { sizeGiB: -5, volumeType: 'gp3' }, version };
      h.store.putRaw(raw);
      expect(await h.watcher.handle([insert(raw as never)])).toEqual({ failedChangeIds: [] });
      const record = await h.store.get(volumeKey('data-1'));
      expect(record).toMatchObject({ version: 1, status: { state: 'error', code: 'InvalidRecord', message: expect.stringContaining('version') } });
      expect(h.metrics.counter('InvalidRecords')).toBe(1);
    }
  });

  it('a record written straight into the table with an operation start that is no time is rejected without an EC2 call, then taken up with the status the rejection wrote', async () => {
    const log = new RecordingLog();
    const h = harness({ log, ebsTimings: { create: 60_000 } });
    const volume = newVolume('data-1');
    const tags = { [OWNERSHIP_TAGS.owner]: 'ebs-provisioner', [OWNERSHIP_TAGS.record]: 'data-1' };
    const { ebsVolumeId } = await h.ebs.createVolume({ clientToken: 'restored', availabilityZone: AZ, spec: volume.spec, tags });
    // Its checks would be scheduled from that start: a delay that is no number, which no queue takes.
    const raw = { ...volume, ebsVolumeId, availabilityZone: AZ, status: { state: 'creating', attempts: 0, updatedAt: '', operationStartedAt: 'soon' } };
    h.store.putRaw(raw);
    await h.watcher.handle([insert(raw as never)]);
    expect((await h.store.get(volumeKey('data-1')))?.status).toMatchObject({ state: 'error', code: 'InvalidRecord', message: expect.stringContaining('status.operationStartedAt') });
    expect(sent(h)).toEqual([]);
    expect(h.ebs.calls.DescribeVolumes).toBe(0);
    // The rejection wrote a status of the system's own over the one that was no time: the record is valid again, and checked.
    await h.watch();
    await h.settle(90_000);
    expect(await h.store.get(volumeKey('data-1'))).toMatchObject({ ebsVolumeId, status: { state: 'available' } });
    expect(log.entries.filter((entry) => entry.level === 'error')).toEqual([]);
  });

  it('a volume record written straight into the table in a state of a volume EC2 holds, without its EC2 id, is rejected without an EC2 call: dying, it is removed; alive, it is created', async () => {
    for (const state of ['available', 'in-use', 'modifying', 'deleting'] as const) {
      const h = harness();
      const raw = { ...newVolume('data-1'), life: 'dying', status: { state, attempts: 0, updatedAt: '' } };
      h.store.putRaw(raw);
      await h.watcher.handle([insert(raw as never)]);
      expect((await h.store.get(volumeKey('data-1')))?.status, state).toMatchObject({ state: 'error', code: 'InvalidRecord', message: expect.stringContaining('ebsVolumeId') });
      expect(sent(h), state).toEqual([]);
      // The rejection's status holds no volume: a dying record with none goes without EC2 (no DeleteVolume of no id).
      await h.watch();
      await h.settle(10_000);
      expect(await h.store.get(volumeKey('data-1')), state).toBeUndefined();
      expect(Object.values(h.ebs.calls).every((count) => count === 0), state).toBe(true);
    }
    // Alive, with an attachment waiting: the volume is created and attached, instead of the record saying available for ever.
    const h = harness();
    h.store.putRaw({ ...newVolume('data-1'), status: { state: 'available', attempts: 0, updatedAt: '' } });
    await h.store.create(newAttachment('data-1'));
    for (let i = 0; i < 4; i++) {
      await h.watch();
      await h.settle(10_000);
    }
    expect(await h.store.get(volumeKey('data-1'))).toMatchObject({ ebsVolumeId: expect.any(String), status: { state: 'in-use' } });
    expect((await h.store.get(attachmentKey('data-1')))?.status.state).toBe('attached');
  });

  // The system never writes a final state (it removes the record instead), so one found in the table
  // was written there by hand: removing the record for it would drop a live record without a word and
  // leave what EC2 holds for it (a volume, an attachment) looked after by nothing.
  it('a record written straight into the table in a final state (deleted, detached) is rejected without an EC2 call, not removed; then looked at, it keeps what EC2 holds', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await h.store.create(newAttachment('data-1'));
    for (let i = 0; i < 3; i++) {
      await h.watch();
      await h.settle(10_000);
    }
    const volume = (await h.store.get(volumeKey('data-1'))) as VolumeRecord;
    const attachment = (await h.store.get(attachmentKey('data-1'))) as AttachmentRecord;
    expect(attachment.status.state).toBe('attached');
    const ebsVolumeId = volume.ebsVolumeId!;
    const calls = { ...h.ebs.calls };

    await h.store.update<VolumeRecord>(volumeKey('data-1'), { status: { ...volume.status, state: 'deleted' } });
    await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { status: { ...attachment.status, state: 'detached' } });
    h.changes.splice(0);
    await h.watcher.handle([insert((await h.store.get(volumeKey('data-1')))!), insert((await h.store.get(attachmentKey('data-1')))!, 'c2')]);
    for (const [key, state] of [[volumeKey('data-1'), 'deleted'], [attachmentKey('data-1'), 'detached']] as const)
      expect((await h.store.get(key))?.status, state).toMatchObject({ state: 'error', code: 'InvalidRecord', message: `status.state: is ${state}, a final state the system never writes: a record that reaches it is removed` });
    expect(sent(h)).toEqual([]);
    expect(h.ebs.calls).toEqual(calls);

    // The rejection's own status is a valid one: each record is looked at, and finds what EC2 holds.
    for (let i = 0; i < 3; i++) {
      await h.watch();
      await h.settle(10_000);
    }
    expect(await h.store.get(volumeKey('data-1'))).toMatchObject({ ebsVolumeId, life: 'alive', status: { state: 'in-use' } });
    expect(await h.store.get(attachmentKey('data-1'))).toMatchObject({ life: 'alive', device: '/dev/sdf', status: { state: 'attached' } });
    expect(h.ebs.volume(ebsVolumeId)?.attachments).toEqual([{ instanceId: INSTANCE, device: '/dev/sdf', state: 'attached' }]);
    expect([h.ebs.calls.CreateVolume, h.ebs.calls.DetachVolume ?? 0, h.ebs.calls.DeleteVolume ?? 0]).toEqual([1, 0, 0]);
  });

  // Judged against a record that says nothing of EC2, a spec would be taken as held whatever it asks
  // for (`ebsBaseline` falls back to the spec itself): a look records what EC2 holds first.
  it('a volume record written straight into the table naming its EC2 volume, available, but not what EC2 holds, is looked at: its spec and a later change of it are carried out, not taken as held', async () => {
    const h = harness({ ebsTimings: { modify: 1000, optimize: 1000 } });
    const { ebsVolumeId } = await h.ebs.createVolume({
      clientToken: 'restored',
      availabilityZone: AZ,
      spec: { sizeGiB: 10, volumeType: 'gp3' },
      tags: { [OWNERSHIP_TAGS.owner]: 'ebs-provisioner', [OWNERSHIP_TAGS.record]: 'data-1' },
    });
    await h.clock.advance(10_000);
    const at = new Date(h.clock.now()).toISOString();
    const raw = newVolume('data-1', { ebsVolumeId, availabilityZone: AZ, status: { state: 'available', attempts: 0, updatedAt: at }, createdAt: at }, { sizeGiB: 15, tags: { team: 'a' } });
    h.store.putRaw(raw);
    await h.watcher.handle([insert(raw)]);
    expect(sent(h).map((s) => s.op)).toEqual(['check-volume']);
    for (let i = 0; i < 3; i++) {
      await h.watch();
      await h.settle(10_000);
    }
    expect(h.ebs.volume(ebsVolumeId)).toMatchObject({ sizeGiB: 15, tags: { team: 'a' } });
    expect(await h.store.get(volumeKey('data-1'))).toMatchObject({ observed: { sizeGiB: 15, tags: { team: 'a' } }, observedGeneration: 1, status: { state: 'available' } });

    const volume = (await h.store.get(volumeKey('data-1'))) as VolumeRecord;
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { spec: { ...volume.spec, sizeGiB: 20, tags: { team: 'b' } }, generation: 2 });
    for (let i = 0; i < 3; i++) {
      await h.watch();
      await h.settle(10_000);
    }
    expect(h.ebs.volume(ebsVolumeId)).toMatchObject({ sizeGiB: 20, tags: { team: 'b' } });
    expect(await h.store.get(volumeKey('data-1'))).toMatchObject({ observedGeneration: 2, status: { state: 'available' } });
    expect([h.ebs.calls.ModifyVolume, h.ebs.calls.CreateTags]).toEqual([2, 2]);
  });

  it('a dying attachment whose forced detach time written into the table is no time is rejected saying so, rather than its forced detach taken as made', async () => {
    const h = await attachedVolume();
    const ebsVolumeId = ((await h.store.get(volumeKey('data-1'))) as VolumeRecord).ebsVolumeId!;
    h.ebs.keepBusy(ebsVolumeId, INSTANCE);
    await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { life: 'dying' });
    await h.watch();
    await h.settle(10_000);
    expect((await h.store.get(attachmentKey('data-1')))?.status.state).toBe('detaching');
    const calls = { ...h.ebs.calls };

    await h.store.update(attachmentKey('data-1'), { forceDetach: true, forceDetachSentAt: 'soon' } as never);
    await h.watch();
    expect((await h.store.get(attachmentKey('data-1')))?.status).toMatchObject({
      state: 'error',
      code: 'InvalidRecord',
      message: 'forceDetachSentAt: must be an ISO-8601 time like 2026-01-01T12:00:00.000Z',
    });
    expect(sent(h).map((s) => s.op)).not.toContain('detach');
    await h.drain();
    expect(h.ebs.calls.DetachVolume).toBe(calls.DetachVolume);
  });

  it('an invalid record whose rejection could not be written is retried and counted once, when it is written', async () => {
    const h = harness();
    const raw = { ...newVolume('data-1'), spec: { sizeGiB: -5, volumeType: 'gp3' } };
    h.store.putRaw(raw);
    h.store.failNext('update', new Error('DynamoDB unavailable'));
    expect(await h.watcher.handle([insert(raw as never)])).toEqual({ failedChangeIds: ['c1'] });
    expect(h.metrics.counter('InvalidRecords')).toBe(0);
    expect(await h.watcher.handle([insert(raw as never)])).toEqual({ failedChangeIds: [] });
    expect((await h.store.get(volumeKey('data-1')))?.status).toMatchObject({ state: 'error', code: 'InvalidRecord' });
    expect(h.metrics.counter('InvalidRecords')).toBe(1);
  });

  it('a record written straight into the table with thousands of invalid tags gets a short rejection it can hold', async () => {
    const h = harness();
    const tags = Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`aws:k${i}`, 'v!']));
    const raw = { ...newVolume('data-1'), spec: { ...newVolume('data-1').spec, tags } };
    h.store.putRaw(raw);
    expect(await h.watcher.handle([insert(raw as never)])).toEqual({ failedChangeIds: [] });
    const status = (await h.store.get(volumeKey('data-1')))?.status;
    expect(status).toMatchObject({ state: 'error', code: 'InvalidRecord' });
    expect(status!.message!.length).toBeLessThanOrEqual(2000);
    // Over the tag limit, the count is the one issue: none per key.
    expect(status!.message).toBe('spec.tags: at most 48 tags, got 3000');
    expect(h.metrics.counter('InvalidRecords')).toBe(1);
  });

  it('an invalid record too large to take its rejection is logged and counted, and its change is not retried', async () => {
    const log = new RecordingLog();
    const h = harness({ log });
    const small = { ...newVolume('data-1'), spec: { ...newVolume('data-1').spec, tags: { big: '' } } };
    // Just under DynamoDB's limit: a client may write it, but no status with a reason fits on top of it.
    const raw = { ...small, spec: { ...small.spec, tags: { big: 'x'.repeat(TABLE.maxItemBytes - approximateItemBytes(small) - 50) } } };
    h.store.putRaw(raw);
    expect(await h.watcher.handle([insert(raw as never)])).toEqual({ failedChangeIds: [] });
    expect(await h.store.get(volumeKey('data-1'))).toEqual(raw);
    expect(sent(h)).toEqual([]);
    expect(h.metrics.counter('InvalidRecords')).toBe(1);
    expect(log.entries.filter((entry) => entry.level === 'warn').map((entry) => [entry.message, entry.attributes?.key])).toEqual([
      ['invalid record', 'volume/data-1'],
      [RECORD_TOO_LARGE_LOG, 'volume/data-1'],
    ]);
    expect(log.entries.filter((entry) => entry.level === 'error')).toEqual([]);
    // A redelivery ends the same way, without failing the batch.
    expect(await h.watcher.handle([insert(raw as never)])).toEqual({ failedChangeIds: [] });
    // Once the client makes it smaller, it takes its rejection.
    const smaller = { ...raw, spec: { ...raw.spec, tags: { big: 'x'.repeat(300) } } };
    h.store.putRaw(smaller);
    expect(await h.watcher.handle([insert(smaller as never)])).toEqual({ failedChangeIds: [] });
    expect((await h.store.get(volumeKey('data-1')))?.status).toMatchObject({
      state: 'error',
      code: 'InvalidRecord',
      message: 'spec.tags.big: tag value must be at most 256 characters, got 300',
    });
  });

  it('a status write the table refuses for the size of a valid record is logged and counted, and its change is not retried', async () => {
    const log = new RecordingLog();
    const h = harness({ log });
    // Valid records are bounded far below the item limit (domain-validation tests); the table's own count of an item's size is the last word.
    const attachment = newAttachment('data-1');
    h.store.putRaw(attachment);
    h.store.failNext('update', new ItemTooLargeError('attachment/data-1: Item size has exceeded the maximum allowed size'));
    expect(await h.watcher.handle([insert(attachment)])).toEqual({ failedChangeIds: [] });
    expect(await h.store.get(attachmentKey('data-1'))).toEqual(attachment);
    expect(h.metrics.counter('InvalidRecords')).toBe(1);
    expect(log.entries.filter((entry) => entry.level === 'warn').map((entry) => entry.message)).toEqual([RECORD_TOO_LARGE_LOG]);
  });

  it("a status write the table refuses for the size of another record during a volume's change skips that record alone: the volume's operations and its other attachments go on", async () => {
    const log = new RecordingLog();
    const h = harness({ log });
    await h.store.create(newVolume('data-1'));
    await h.store.create(newAttachment('data-1'));
    await h.store.create(newAttachment('data-1', { instanceId: OTHER_INSTANCE }));
    await h.store.remove(volumeKey('data-1'));
    await h.watch();
    h.queue.receive(100);
    // Written again: its creation is enqueued, and its waiting attachments say they wait for its volume now.
    await h.store.create(newVolume('data-1'));
    h.store.failNext('update', new ItemTooLargeError(`attachment/data-1/${INSTANCE}: Item size has exceeded the maximum allowed size`));
    await h.watch();
    expect(sent(h)).toEqual([{ op: 'create-volume', key: 'data-1', delaySeconds: 0 }]);
    expect((await h.store.get(attachmentKey('data-1', OTHER_INSTANCE)))?.status).toMatchObject({ state: 'pending', message: 'waiting for volume data-1 to become available' });
    expect(log.entries.filter((entry) => entry.level === 'warn').map((entry) => [entry.message, entry.attributes?.key])).toEqual([[RECORD_TOO_LARGE_LOG, `attachment/data-1/${INSTANCE}`]]);
    expect(log.entries.filter((entry) => entry.level === 'error')).toEqual([]);
    expect(h.metrics.counter('InvalidRecords')).toBe(1);
  });

  it('a volume record removed and written again, too large to take its rejection, still lets its dying attachment detach', async () => {
    const h = await attachedVolume();
    await h.watch();
    h.queue.receive(100);
    const removed = await h.store.get(volumeKey('data-1'));
    await h.store.update(attachmentKey('data-1'), { life: 'dying' });
    await h.store.remove(volumeKey('data-1'));
    // Written again with a time ahead of the clock (rejected), and too large for the rejection's status.
    const fresh = newVolume('data-1');
    const raw = { ...fresh, status: { ...fresh.status, updatedAt: new Date(h.clock.now() + 86_400_000).toISOString() } };
    h.store.putRaw(raw);
    h.store.failNext('update', new ItemTooLargeError('volume/data-1: Item size has exceeded the maximum allowed size'));
    const changes: RecordChange[] = [remove(removed!), insert(raw, 'c2')];
    expect(await h.watcher.handle(changes)).toEqual({ failedChangeIds: [] });
    expect(sent(h)).toEqual([{ op: 'detach', key: `data-1/${INSTANCE}`, delaySeconds: 0 }]);
    expect(await h.store.get(volumeKey('data-1'))).toEqual(raw);
    expect(h.metrics.counter('InvalidRecords')).toBe(1);
  });

  it("a status write the table refuses for the size of a removed attachment's volume is logged and counted under the volume's key", async () => {
    const log = new RecordingLog();
    const h = harness({ log });
    await h.store.create(newVolume('data-1', { life: 'dying' }));
    await h.store.create(newAttachment('data-1', { life: 'dying' }));
    await h.store.create(newAttachment('data-1', { instanceId: OTHER_INSTANCE, life: 'dying' }));
    const removed = await h.store.get(attachmentKey('data-1'));
    await h.store.remove(attachmentKey('data-1'));
    // The volume's wait for its last attachment is the write refused.
    h.store.failNext('update', new ItemTooLargeError('volume/data-1: Item size has exceeded the maximum allowed size'));
    expect(await h.watcher.handle([remove(removed!)])).toEqual({ failedChangeIds: [] });
    expect(log.entries.filter((entry) => entry.level === 'warn').map((entry) => [entry.message, entry.attributes?.key])).toEqual([[RECORD_TOO_LARGE_LOG, 'volume/data-1']]);
    expect(h.metrics.counter('InvalidRecords')).toBe(1);
  });

  it('a volume whose spec EBS would refuse, written straight into the table, is still deleted with its EC2 volume', async () => {
    const h = harness();
    // Made by this deployment for data-1 (its ownership tags), its record then written by hand.
    const tags = { [OWNERSHIP_TAGS.owner]: 'ebs-provisioner', [OWNERSHIP_TAGS.record]: 'data-1' };
    const { ebsVolumeId } = await h.ebs.createVolume({ clientToken: 't', availabilityZone: AZ, spec: { sizeGiB: 10, volumeType: 'gp3' }, tags });
    await h.clock.advance(10_000);
    const raw = { ...newVolume('data-1', { ebsVolumeId, status: { state: 'available', attempts: 0, updatedAt: new Date(h.clock.now()).toISOString() } }), spec: { sizeGiB: 0, volumeType: 'gp3' } };
    h.store.putRaw(raw);
    await h.watcher.handle([insert(raw as never)]);
    expect((await h.store.get(volumeKey('data-1')))?.status).toMatchObject({ state: 'error', code: 'InvalidRecord' });

    await h.store.update(volumeKey('data-1'), { life: 'dying' });
    await h.watch();
    await h.settle(30_000);
    await h.watch();
    expect(await h.store.get(volumeKey('data-1'))).toBeUndefined();
    expect(h.ebs.calls.DeleteVolume).toBe(1);
    expect(h.ebs.volume(ebsVolumeId)).toBeUndefined();
  });

  it('a volume written straight into the table with no place to create it in gets an error and no call; deleting it removes it', async () => {
    const h = harness();
    const { availabilityZone: _, ...unplaced } = newVolume('data-1').spec;
    const raw = { ...newVolume('data-1'), spec: unplaced };
    h.store.putRaw(raw);
    await h.watcher.handle([insert(raw as never)]);
    expect(sent(h)).toEqual([]);
    expect((await h.store.get(volumeKey('data-1')))?.status).toMatchObject({
      state: 'error',
      code: 'InvalidRecord',
      message: 'spec.availabilityZone: is required unless placementInstanceId names an instance whose AZ the volume goes in',
    });
    // The client gives up on it: never created, so it goes without an EC2 call.
    await h.store.update(volumeKey('data-1'), { life: 'dying' });
    await h.watch();
    await h.settle(10_000);
    expect(await h.store.get(volumeKey('data-1'))).toBeUndefined();
    expect(Object.values(h.ebs.calls).every((count) => count === 0)).toBe(true);
  });

  it('duplicate and out-of-order changes enqueue the same thing and write nothing twice', async () => {
    const h = harness();
    const volume = newVolume('data-1');
    await h.store.create(volume);
    const change = insert(volume);
    await h.watcher.handle([change, change]);
    await h.watcher.handle([change]);
    expect(sent(h).map((s) => s.op)).toEqual(['create-volume', 'create-volume']);
    // A stale image (older than the record) does not override the current state.
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'dying' });
    await h.watcher.handle([modify({ ...volume, life: 'dying' }, volume, 'late')]);
    expect(await h.store.get(volumeKey('data-1'))).toBeUndefined();
  });

  it('a change the system made that releases nothing is settled from its image, without reading the table', async () => {
    const h = harness();
    const volume = newVolume('data-1');
    await h.store.create(volume);
    const claimed = await h.store.update<VolumeRecord>(volumeKey('data-1'), { claim: { owner: 'executor-1', expiresAt: h.clock.now() + 60_000 } });
    const reads = h.store.reads;
    await h.watcher.handle([modify(volume, claimed)]);
    expect(h.store.reads).toBe(reads);
    expect(sent(h)).toEqual([]);
    // An invalid image is read and judged on the record itself.
    const broken = { ...claimed, status: { ...claimed.status, state: 'melting' } };
    h.store.putRaw(broken);
    await h.watcher.handle([modify(claimed, broken, 'c2')]);
    expect(h.store.reads).toBeGreaterThan(reads);
    expect((await h.store.get(volumeKey('data-1')))?.status).toMatchObject({ state: 'error', code: 'InvalidRecord' });
  });

  it('changes the system made itself enqueue nothing', async () => {
    const h = harness();
    const volume = newVolume('data-1');
    await h.store.create(volume);
    const updated = await h.store.update<VolumeRecord>(volumeKey('data-1'), { status: { ...volume.status, state: 'creating' }, ebsVolumeId: 'vol-0123456789abcdef0' });
    const reads = h.store.reads;
    await h.watcher.handle([modify(volume, updated)]);
    expect(sent(h)).toEqual([]);
    // A move that changes nothing for its attachments (neither usable nor in or out of error) reads nothing either.
    expect(h.store.reads).toBe(reads);
  });

  it("a table write that changes only an attachment's requested device is a client's request: the attachment is planned and attaches there", async () => {
    const h = harness();
    await createdVolume(h);
    const attachment = newAttachment('data-1', { requestedDevice: '/dev/sdf' });
    await h.store.create(attachment);
    const changed = await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { requestedDevice: '/dev/sdg' });
    expect(sent(h)).toEqual([]);
    await h.watcher.handle([modify(attachment, changed)]);
    expect(sent(h)).toEqual([{ op: 'attach', key: `data-1/${INSTANCE}`, delaySeconds: 0 }]);
    await h.settle(30_000);
    expect(await h.store.get(attachmentKey('data-1'))).toMatchObject({ status: { state: 'attached' }, device: '/dev/sdg' });
  });

  it("a table write that only sets force on a detach under way is a client's request: the forced detach is sent for at once", async () => {
    const h = harness();
    await createdVolume(h);
    const detaching = newAttachment('data-1', { life: 'dying', device: '/dev/sdf', status: { state: 'detaching', attempts: 0, updatedAt: new Date(h.clock.now()).toISOString() } });
    await h.store.create(detaching);
    const forced = await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { forceDetach: true });
    await h.watcher.handle([modify(detaching, forced)]);
    expect(sent(h)).toEqual([{ op: 'detach', key: `data-1/${INSTANCE}`, delaySeconds: 0 }]);
  });

  it('an attachment that starts with the reason it waits, as the API writes it, gets no status write', async () => {
    const h = harness();
    const volume = newVolume('data-1');
    await h.store.create(volume);
    const attachment = newAttachmentRecord(volume, INSTANCE, new Date(h.clock.now()).toISOString());
    await h.store.create(attachment);
    await h.watcher.handle([insert(attachment)]);
    expect(await h.store.get(attachmentKey('data-1'))).toMatchObject({ version: 1, status: { state: 'pending', message: expect.stringMatching(/waiting for volume data-1/) } });
    expect(sent(h)).toEqual([]);
  });

  it('a volume that becomes available releases its waiting attachments at once, with one AttachVolume', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await h.store.create(newAttachment('data-1'));
    await h.store.create(newAttachment('data-1', { instanceId: OTHER_INSTANCE, life: 'dying' }));
    await h.watch();
    await h.drain();
    // Planned while the volume was creating: the attachment waits, with a reason, and no attach is queued.
    expect((await h.store.get(attachmentKey('data-1')))?.status).toMatchObject({ state: 'pending', message: expect.stringMatching(/waiting for volume/) });
    expect(sent(h).some((s) => s.op === 'attach')).toBe(false);
    await h.clock.advance(30_000);
    await h.drain();
    // The executor's check saw the volume available and attached in the same invocation.
    expect(h.ebs.calls.AttachVolume).toBe(1);
    expect((await h.store.get(attachmentKey('data-1')))?.status.state).toBe('attaching');
    // The stream brings the volume's change to the watcher, which finds the attach under way: no
    // second attach is queued, only the executor's own progress check waits.
    await h.watch();
    expect(sent(h).filter((s) => s.key === `data-1/${INSTANCE}`).map((s) => s.op)).toEqual(['check-attachment']);
    await h.settle(10_000);
    expect(h.ebs.calls.AttachVolume).toBe(1);
    expect((await h.store.get(attachmentKey('data-1')))?.status.state).toBe('attached');
  });

  it('releases waiting attachments when a volume becomes available by any other path', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await h.watch();
    await h.settle(30_000);
    expect((await h.store.get(volumeKey('data-1')))?.status.state).toBe('available');
    await h.watch();
    // An attachment that waited while the volume's availability was written elsewhere (say, by the reconciler).
    await h.store.create(newAttachment('data-1', { status: { state: 'pending', attempts: 0, updatedAt: new Date(h.clock.now()).toISOString(), message: 'waiting' } }));
    h.changes.splice(0);
    const volume = (await h.store.get(volumeKey('data-1'))) as VolumeRecord;
    await h.watcher.handle([modify({ ...volume, status: { ...volume.status, state: 'creating' } }, volume, 'c9')]);
    expect(sent(h)).toContainEqual({ op: 'attach', key: `data-1/${INSTANCE}`, delaySeconds: 0 });
    await h.drain();
    expect(h.ebs.calls.AttachVolume).toBe(1);
  });

  it('a volume that goes in use tells its waiting attachment to another instance that it waits for the volume to be detached from the other instance; no EC2 call', async () => {
    const h = await attachedVolume();
    // Written while the volume was still available, and planned then.
    await h.store.create(
      newAttachment('data-1', {
        instanceId: OTHER_INSTANCE,
        status: { state: 'pending', attempts: 0, updatedAt: new Date(h.clock.now()).toISOString(), message: 'waiting for volume data-1 to become available' },
      }),
    );
    h.changes.splice(0);
    const volume = (await h.store.get(volumeKey('data-1'))) as VolumeRecord;
    expect(volume.status.state).toBe('in-use');
    const calls = { ...h.ebs.calls };
    await h.watcher.handle([modify({ ...volume, status: { ...volume.status, state: 'available' } }, volume, 'c9')]);
    expect((await h.store.get(attachmentKey('data-1', OTHER_INSTANCE)))?.status).toMatchObject({
      state: 'pending',
      message: 'waiting for volume data-1 to be detached from its other instance',
    });
    expect(sent(h).filter((s) => s.key === `data-1/${OTHER_INSTANCE}`)).toEqual([]);
    expect(h.ebs.calls).toEqual(calls);
  });

  it('a volume that becomes available releases an attachment that kept its device: it looks whether an earlier attach took, then attaches', async () => {
    const h = harness();
    await createdVolume(h);
    // Left by an attach whose answer was lost (on a volume since gone), then waiting for this one.
    const at = new Date(h.clock.now()).toISOString();
    await h.store.create(newAttachment('data-1', { device: '/dev/sdf', status: { state: 'pending', message: 'waiting for volume data-1 to become available', attempts: 1, updatedAt: at } }));
    h.changes.splice(0);
    const volume = (await h.store.get(volumeKey('data-1'))) as VolumeRecord;
    const change: RecordChange = modify({ ...volume, status: { ...volume.status, state: 'creating' } }, volume, 'c9');
    await h.watcher.handle([change]);
    expect(sent(h)).toEqual([{ op: 'check-attachment', key: `data-1/${INSTANCE}`, delaySeconds: 0 }]);
    // Delivered again, the change enqueues the same check; it attaches once.
    await h.watcher.handle([change]);
    await h.settle(20_000);
    expect((await h.store.get(attachmentKey('data-1')))?.status).toMatchObject({ state: 'attached', attempts: 0 });
    expect(h.ebs.calls.AttachVolume).toBe(1);
  });

  it('a volume that becomes available leaves attachments whose retry is scheduled to that retry: no second chain of attempts', async () => {
    const h = harness();
    await createdVolume(h);
    // Their attaches failed after the volume was available (refused; answer lost); the retry messages are on their way.
    const at = new Date(h.clock.now()).toISOString();
    const retrying = { state: 'pending' as const, attempts: 1, updatedAt: at, operationStartedAt: at, nextAttemptAt: new Date(h.clock.now() + 2000).toISOString() };
    await h.store.create(newAttachment('data-1', { status: { ...retrying, code: 'AttachmentLimitExceeded', message: 'too many attachments' } }));
    await h.store.create(newAttachment('data-1', { instanceId: OTHER_INSTANCE, device: '/dev/sdf', status: { ...retrying, code: 'InternalError', message: 'An internal error has occurred' } }));
    h.changes.splice(0);
    const volume = (await h.store.get(volumeKey('data-1'))) as VolumeRecord;
    const writes = h.store.writes;
    await h.watcher.handle([modify({ ...volume, status: { ...volume.status, state: 'creating' } }, volume, 'c9')]);
    expect(sent(h)).toEqual([]);
    expect(h.store.writes).toBe(writes);
  });

  it('an attachment waiting for a volume that goes into error says so, and waits again once the volume is retried; no EC2 call', async () => {
    const h = harness();
    h.ebs.failNext('CreateVolume', new ProviderError('invalid-request', 'InvalidParameterValue', 'The parameter is not valid'));
    await h.store.create(newVolume('data-1'));
    await h.store.create(newAttachment('data-1'));
    await h.watch();
    expect((await h.store.get(attachmentKey('data-1')))?.status.message).toBe('waiting for volume data-1 to become available');
    await h.drain();
    expect((await h.store.get(volumeKey('data-1')))?.status).toMatchObject({ state: 'error', code: 'InvalidParameterValue' });

    const volumeChanges = h.changes.filter((change) => change.key.kind === 'volume');
    const calls = { ...h.ebs.calls };
    await h.watch();
    expect((await h.store.get(attachmentKey('data-1')))?.status).toMatchObject({
      state: 'pending',
      message: 'volume data-1 is in error: InvalidParameterValue; the attach waits until the volume is retried',
    });
    expect(h.ebs.calls).toEqual(calls);
    expect(sent(h)).toEqual([]);
    // Delivered again, the volume's changes write nothing: the reason is already there.
    const writes = h.store.writes;
    await h.watcher.handle(volumeChanges);
    expect(h.store.writes).toBe(writes);

    // Retried, the volume is pending again and its attachment waits for it to become available; then it attaches.
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { generation: 2 });
    await h.watch();
    expect((await h.store.get(volumeKey('data-1')))?.status.state).toBe('pending');
    expect((await h.store.get(attachmentKey('data-1')))?.status).toMatchObject({ state: 'pending', message: 'waiting for volume data-1 to become available' });
    await h.settle(30_000);
    await h.watch();
    await h.settle(30_000);
    expect((await h.store.get(attachmentKey('data-1')))?.status.state).toBe('attached');
    expect(h.ebs.calls.AttachVolume).toBe(1);
  });

  it('an attachment waiting for its volume in error carries no code, next attempt, operation start or failed attempts of an earlier attempt (it starts afresh with the volume\'s retry); watcher and executor write the same wait', async () => {
    const h = harness();
    const at = new Date(h.clock.now()).toISOString();
    const volume = newVolume('data-1', { status: { state: 'error', code: 'InvalidParameterValue', message: 'The parameter is not valid', attempts: 1, updatedAt: at } });
    await h.store.create(volume);
    // Both failed an attach earlier and were to try again in a minute.
    const failed = { state: 'pending' as const, code: 'RequestTimeout', message: 'Request timed out', attempts: 2, updatedAt: at, operationStartedAt: at, nextAttemptAt: new Date(h.clock.now() + 60_000).toISOString() };
    await h.store.create(newAttachment('data-1', { status: failed }));
    await h.store.create(newAttachment('data-1', { instanceId: OTHER_INSTANCE, status: failed }));
    await h.clock.advance(1000);
    const waiting = {
      state: 'pending',
      message: 'volume data-1 is in error: InvalidParameterValue; the attach waits until the volume is retried',
      attempts: 0,
      updatedAt: new Date(h.clock.now()).toISOString(),
    };

    // The executor meets one of them on its retry message, the watcher both when the volume's move reaches it.
    await h.executor.run(h.batchOf(h.op('attach', attachmentKey('data-1', OTHER_INSTANCE))));
    const byExecutor = await h.store.get(attachmentKey('data-1', OTHER_INSTANCE));
    expect(byExecutor?.status).toEqual(waiting);
    await h.watcher.handle([modify({ ...volume, status: { state: 'creating', attempts: 0, updatedAt: at } }, volume)]);
    expect((await h.store.get(attachmentKey('data-1')))?.status).toEqual(waiting);
    // Already waiting as the watcher would write it: not written again.
    expect((await h.store.get(attachmentKey('data-1', OTHER_INSTANCE)))?.version).toBe(byExecutor?.version);
    expect(sent(h)).toEqual([]);
    expect(h.ebs.calls.AttachVolume ?? 0).toBe(0);
  });

  it("an attachment's wait for its volume is no part of its attach's age: a failure after a long wait is retried, not a terminal error", async () => {
    const h = harness();
    const at = new Date(h.clock.now()).toISOString();
    const volume = newVolume('data-1', { status: { state: 'error', code: 'InvalidParameterValue', message: 'The parameter is not valid', attempts: 1, updatedAt: at } });
    await h.store.create(volume);
    await h.store.create(newAttachment('data-1', { status: { state: 'pending', code: 'AttachmentLimitExceeded', message: 'too many attachments', attempts: 1, updatedAt: at, operationStartedAt: at } }));
    await h.watcher.handle([modify({ ...volume, status: { state: 'creating', attempts: 0, updatedAt: at } }, volume)]);
    expect((await h.store.get(attachmentKey('data-1')))?.status.operationStartedAt).toBeUndefined();

    // The volume is retried seven hours later, beyond the six an operation may last; its attach is refused once more.
    await h.clock.advance(7 * 3_600_000);
    h.ebs.failNext('AttachVolume', new ProviderError('limit-exceeded', 'AttachmentLimitExceeded', 'too many attachments'));
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { generation: 2 });
    for (let i = 0; i < 20 && (await h.store.get(attachmentKey('data-1')))?.status.attempts !== 1; i++) {
      await h.watch();
      await h.settle(1000);
    }
    expect((await h.store.get(attachmentKey('data-1')))?.status).toMatchObject({ state: 'pending', code: 'AttachmentLimitExceeded', attempts: 1 });
    await h.watch();
    await h.settle(30_000);
    expect((await h.store.get(attachmentKey('data-1')))?.status).toMatchObject({ state: 'attached', attempts: 0 });
    expect(h.ebs.calls.AttachVolume).toBe(2);
  });

  it('a dying volume waiting for its attachments keeps the code of its error, and drops that of a wait it no longer makes', async () => {
    const h = harness();
    const at = new Date(h.clock.now()).toISOString();
    const nextAttemptAt = new Date(h.clock.now() + 3_600_000).toISOString();
    const failed = newVolume('failed', { ebsVolumeId: 'vol-00000000000000001', life: 'dying', status: { state: 'error', code: 'InternalError', message: 'boom (gave up after 8 failed attempts)', attempts: 8, updatedAt: at } });
    const cooling = newVolume('cooling', {
      ebsVolumeId: 'vol-00000000000000002',
      life: 'dying',
      status: { state: 'in-use', code: 'VolumeModificationRateExceeded', message: 'EC2 allows 4 modifications per volume in any 24 hours', attempts: 0, updatedAt: at, nextAttemptAt },
    });
    for (const volume of [failed, cooling]) {
      await h.store.create(volume);
      await h.store.create(newAttachment(volume.volumeId, { device: '/dev/sdf', status: { state: 'attached', attempts: 0, updatedAt: at } }));
    }
    await h.watcher.handle([insert(failed, 'c1'), insert(cooling, 'c2')]);
    expect((await h.store.get(volumeKey('failed')))?.status).toEqual({ state: 'error', code: 'InternalError', message: 'detaching 1 attachment(s) before deleting', attempts: 8, updatedAt: at });
    expect((await h.store.get(volumeKey('cooling')))?.status).toEqual({ state: 'in-use', message: 'detaching 1 attachment(s) before deleting', attempts: 0, updatedAt: at });
  });

  it("a client's spec change after the system's own 4 modifications within 24 hours enqueues the modification at once, for the executor to write the wait", async () => {
    const h = harness();
    await createdVolume(h);
    const iso = (hoursAgo: number) => new Date(h.clock.now() - hoursAgo * 3_600_000).toISOString();
    const at = iso(3);
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { lastModificationStartedAt: iso(0), earlierModificationStarts: [at, iso(2), iso(1)] });
    h.changes.splice(0);
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { spec: { ...newVolume('data-1').spec, sizeGiB: 20 }, generation: 2 });
    await h.watch();
    expect(sent(h)).toEqual([{ op: 'modify-volume', key: 'data-1', delaySeconds: 0 }]);
    await h.drain();
    expect((await h.store.get(volumeKey('data-1')))?.status).toMatchObject({ state: 'available', code: 'VolumeModificationRateExceeded', nextAttemptAt: new Date(Date.parse(at) + 24 * 3_600_000 + 5_000).toISOString() });
    expect(h.ebs.calls.ModifyVolume).toBe(0);
  });

  it('a client change of a volume whose modification is under way enqueues a look: the modification\'s own chain of checks stays the only one', async () => {
    const h = harness({ ebsTimings: { modify: 3_600_000, optimize: 1000 } });
    await createdVolume(h);
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { spec: { ...newVolume('data-1').spec, iops: 4000 }, generation: 2 });
    await h.watch();
    await h.settle(20_000);
    await h.watch();
    expect((await h.store.get(volumeKey('data-1')))?.status.state).toBe('modifying');
    const chain = h.queue.pending().map((pending) => pending.message);
    expect(chain).toEqual([expect.objectContaining({ op: 'check-volume' })]);
    expect(chain[0]!.nudge).toBeUndefined();

    await h.store.update<VolumeRecord>(volumeKey('data-1'), { spec: { ...newVolume('data-1').spec, iops: 4000, tags: { team: 'b' } }, generation: 3 });
    await h.watch();
    expect(h.queue.pending().map((pending) => pending.message)).toEqual([...chain, expect.objectContaining({ op: 'check-volume', nudge: true })]);
    await h.drain();
    expect(h.queue.pending().map((pending) => pending.message)).toEqual(chain);
  });

  it('a volume record put whole into the table in a state of an operation under way gets a check of its own: no chain of checks runs on it yet', async () => {
    const h = harness();
    const at = new Date(h.clock.now()).toISOString();
    await h.store.create(newVolume('data-1', { ebsVolumeId: 'vol-0123456789abcdef0', status: { state: 'modifying', attempts: 0, updatedAt: at, operationStartedAt: at } }));
    await h.watch();
    const messages = h.queue.pending().map((pending) => pending.message);
    expect(messages).toEqual([expect.objectContaining({ op: 'check-volume' })]);
    expect(messages[0]!.nudge).toBeUndefined();
  });

  it('an insert delivered again once the executor started its operation (a stream batch replayed) enqueues a look: the operation\'s own chain of checks stays the only one', async () => {
    const h = harness({ ebsTimings: { create: 600_000 } });
    await h.store.create(newVolume('data-1'));
    const inserted = h.changes.slice();
    await h.watch();
    await h.drain();
    await h.watch();
    expect((await h.store.get(volumeKey('data-1')))?.status.state).toBe('creating');
    const chain = h.queue.pending().map((pending) => pending.message);
    expect(chain).toEqual([expect.objectContaining({ op: 'check-volume' })]);

    // The batch that held the insert failed after it: the stream delivers it again.
    await h.watcher.handle(inserted);
    expect(h.queue.pending().map((pending) => pending.message)).toEqual([...chain, expect.objectContaining({ op: 'check-volume', nudge: true })]);
    await h.drain();
    expect(h.queue.pending().map((pending) => pending.message)).toEqual(chain);
  });

  it.each([
    { change: 'delete', failing: 'DeleteVolume' as const, write: { life: 'dying' as const } },
    { change: 'new spec', failing: 'CreateTags' as const, write: { spec: { ...newVolume('data-1').spec, tags: { team: 'b' } }, generation: 2 } },
  ])("a client's $change delivered again (a stream batch replayed) once the operation toward it ($failing) failed leaves that failure's attempt and next attempt in the status", async ({ failing, write }) => {
    const h = harness();
    await createdVolume(h);
    h.changes.splice(0);
    await h.store.update<VolumeRecord>(volumeKey('data-1'), write);
    const clientChanges = h.changes.slice();
    h.ebs.failNext(failing, new ProviderError('transient', 'InternalError', 'An internal error has occurred'));
    await h.watch();
    await h.drain();
    const failed = (await h.store.get(volumeKey('data-1')))!.status;
    expect(failed).toMatchObject({ state: 'available', code: 'InternalError', attempts: 1, nextAttemptAt: expect.any(String) });

    await h.watcher.handle(clientChanges);
    expect((await h.store.get(volumeKey('data-1')))?.status).toEqual(failed);
  });

  it('a retry delivered again (a stream batch replayed) once its record was removed and written again under its id retries nothing: the new record in error waits for its own client', async () => {
    const h = harness();
    const refused = () => new ProviderError('invalid-request', 'InvalidParameterValue', 'The parameter is not valid');
    await h.store.create(newVolume('data-1'));
    h.ebs.failNext('CreateVolume', refused());
    await h.watch();
    await h.drain();
    h.changes.splice(0);
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { generation: 2 });
    const retried = h.changes.slice();
    await h.watch();
    await h.settle(10_000);
    // Removed straight from the table and written again, the new record fails for good.
    await h.store.remove(volumeKey('data-1'));
    await h.clock.advance(1000);
    await h.store.create(newVolume('data-1', { createdAt: new Date(h.clock.now()).toISOString() }));
    h.ebs.failNext('CreateVolume', refused());
    await h.watch();
    await h.drain();
    await h.watch();
    const failed = (await h.store.get(volumeKey('data-1')))!;
    expect(failed.status).toMatchObject({ state: 'error', code: 'InvalidParameterValue' });

    await h.watcher.handle(retried);
    expect(await h.store.get(volumeKey('data-1'))).toEqual(failed);
    expect(sent(h)).toEqual([]);
  });

  it("an attachment removed from a volume waiting for EC2's limit on modifications has the volume checked, not modified", async () => {
    const h = harness();
    await createdVolume(h);
    const startedAt = new Date(h.clock.now() - 3_600_000).toISOString();
    const nextAttemptAt = new Date(h.clock.now() - 3_600_000 + 24 * 3_600_000 + 5_000).toISOString();
    // Its record still in-use (its attachment detached), a grow waiting for the window of 4 modifications an hour ago (as a refusal records them).
    await h.store.update<VolumeRecord>(volumeKey('data-1'), {
      spec: { ...newVolume('data-1').spec, sizeGiB: 20 },
      generation: 2,
      lastModificationStartedAt: startedAt,
      earlierModificationStarts: [startedAt, startedAt, startedAt],
      status: { state: 'in-use', code: 'VolumeModificationRateExceeded', message: 'EC2 allows 4 modifications per volume in any 24 hours', attempts: 0, updatedAt: new Date(h.clock.now()).toISOString(), nextAttemptAt },
    });
    h.changes.splice(0);
    await h.watcher.handle([remove(newAttachment('data-1'))]);
    expect(sent(h)).toEqual([{ op: 'check-volume', key: 'data-1', delaySeconds: 0 }]);
    await h.drain();
    expect((await h.store.get(volumeKey('data-1')))?.status).toMatchObject({ state: 'available', code: 'VolumeModificationRateExceeded', nextAttemptAt });
    expect(h.ebs.calls.ModifyVolume).toBe(0);
  });

  it('an attachment removed from a volume whose failed modification waits for its next attempt sends the modification as a look: no ModifyVolume before that time', async () => {
    const h = harness();
    await createdVolume(h);
    const nextAttemptAt = new Date(h.clock.now() + 60_000).toISOString();
    await h.store.update<VolumeRecord>(volumeKey('data-1'), {
      spec: { ...newVolume('data-1').spec, sizeGiB: 20 },
      generation: 2,
      status: { state: 'in-use', code: 'InternalError', message: 'An internal error has occurred', attempts: 3, updatedAt: new Date(h.clock.now()).toISOString(), nextAttemptAt },
    });
    h.changes.splice(0);
    await h.watcher.handle([remove(newAttachment('data-1'))]);
    expect(h.queue.pending().map((pending) => pending.message)).toEqual([expect.objectContaining({ op: 'modify-volume', nudge: true })]);
    await h.drain();
    expect(h.ebs.calls.ModifyVolume).toBe(0);
    expect((await h.store.get(volumeKey('data-1')))?.status).toMatchObject({ code: 'InternalError', attempts: 3, nextAttemptAt });
  });

  it('a volume found gone from EC2 takes its attached attachment back to pending at once, waiting for the volume\'s retry; no EC2 call but the check', async () => {
    const h = await attachedVolume();
    const ebsVolumeId = ((await h.store.get(volumeKey('data-1'))) as VolumeRecord).ebsVolumeId!;
    h.ebs.deleteBehindBack(ebsVolumeId);
    await h.executor.run(h.batchOf(h.op('check-volume', volumeKey('data-1'))));
    expect((await h.store.get(volumeKey('data-1')))?.status).toMatchObject({ state: 'error', code: 'InvalidVolume.NotFound' });
    await h.watch();
    expect(sent(h)).toEqual([{ op: 'check-attachment', key: `data-1/${INSTANCE}`, delaySeconds: 0 }]);
    const calls = { ...h.ebs.calls };
    await h.drain();
    const waiting = await h.store.get(attachmentKey('data-1'));
    // Not "waiting for it to be created again": the volume record, in error, waits for its client's retry.
    expect(waiting?.status).toMatchObject({ state: 'pending', message: 'volume data-1 is in error: InvalidVolume.NotFound; the attach waits until the volume is retried' });
    expect(waiting?.kind === 'attachment' && waiting.device).toBeUndefined();
    expect(h.ebs.calls).toEqual(calls);
    expect(sent(h)).toEqual([]);
  });

  it('a dying volume makes its attachments dying and detaches them before deleting', async () => {
    const h = await attachedVolume();

    await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'dying' });
    await h.watch();
    expect((await h.store.get(attachmentKey('data-1')))?.life).toBe('dying');
    for (let i = 0; i < 10; i++) {
      await h.settle(10_000);
      await h.watch();
    }
    expect(h.ebs.calls.DetachVolume).toBe(1);
    expect(h.ebs.calls.DeleteVolume).toBe(1);
    expect(await h.store.get(attachmentKey('data-1'))).toBeUndefined();
    expect(await h.store.get(volumeKey('data-1'))).toBeUndefined();
  });

  it('a dying volume set back to alive straight into the table while its attachments detach no longer says it waits for them', async () => {
    const h = await attachedVolume();
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'dying' });
    await h.watch();
    expect((await h.store.get(volumeKey('data-1')))?.status.message).toBe('detaching 1 attachment(s) before deleting');

    await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'alive' });
    await h.watch();
    const status = (await h.store.get(volumeKey('data-1')))?.status;
    expect(status?.state).toBe('in-use');
    expect(status?.message).toBeUndefined();
  });

  // Its DetachVolume refused (the volume busy), the attachment stays `attached` with the failure and
  // the detach's next attempt; set back to alive, no detach is made any more, so neither is shown.
  it('an attachment set back to alive straight into the table after EC2 refused its detach says it is attached, with no failure or next attempt left', async () => {
    const h = await attachedVolume();
    const ebsVolumeId = ((await h.store.get(volumeKey('data-1'))) as VolumeRecord).ebsVolumeId!;
    h.ebs.failNext('DetachVolume', new ProviderError('incorrect-state', 'IncorrectState', `Volume '${ebsVolumeId}' is in the 'busy' state.`));
    await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { life: 'dying' });
    await h.watch();
    await h.drain();
    expect((await h.store.get(attachmentKey('data-1')))?.status).toMatchObject({ state: 'attached', code: 'IncorrectState', attempts: 1, nextAttemptAt: expect.any(String) });

    await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { life: 'alive' });
    await h.watch();
    expect((await h.store.get(attachmentKey('data-1')))?.status).toEqual({ state: 'attached', attempts: 0, updatedAt: new Date(h.clock.now()).toISOString() });
    // The detach's own retry comes and finds nothing to do.
    await h.settle(60_000);
    await h.watch();
    expect((await h.store.get(attachmentKey('data-1')))?.status).toMatchObject({ state: 'attached', attempts: 0 });
    expect((await h.store.get(attachmentKey('data-1')))?.status.nextAttemptAt).toBeUndefined();
    expect(h.ebs.calls.DetachVolume).toBe(1);
    expect(h.ebs.volume(ebsVolumeId)?.attachments).toEqual([{ instanceId: INSTANCE, device: '/dev/sdf', state: 'attached' }]);
  });

  it("a dying volume's cascade enqueues no detach itself: its attachment's own change does, once", async () => {
    const h = await attachedVolume();
    const detaches = () => sent(h).filter((s) => s.op === 'detach');

    await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'dying' });
    await h.watcher.handle(h.changes.splice(0));
    expect((await h.store.get(attachmentKey('data-1')))?.life).toBe('dying');
    expect(detaches()).toEqual([]);

    // The stream brings the attachment's change (and the volume's status message) next.
    const next = h.changes.splice(0);
    expect(next.map((c) => c.key.kind).sort()).toEqual(['attachment', 'volume']);
    await h.watcher.handle(next);
    expect(detaches()).toEqual([{ op: 'detach', key: `data-1/${INSTANCE}`, delaySeconds: 0 }]);
  });

  it('a dying volume rejected for a time written ahead of the clock is not planned when another of its attachments goes: its attached one stays, no detach', async () => {
    const h = await attachedVolume();
    // A second attachment, written straight into the table, waits for the volume to be detached from INSTANCE.
    await h.store.create(newAttachment('data-1', { instanceId: OTHER_INSTANCE }));
    await h.watch();
    const ahead = new Date(h.clock.now() + 24 * 3_600_000).toISOString();
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { modificationSentAt: ahead, life: 'dying' });
    await h.watch();
    const rejection = (await h.store.get(volumeKey('data-1')))?.status;
    expect(rejection).toMatchObject({ state: 'error', code: 'InvalidRecord', message: expect.stringMatching(/^modificationSentAt: /) });

    // The waiting attachment is deleted: never attached, it is removed without an EC2 call.
    await h.store.update<AttachmentRecord>(attachmentKey('data-1', OTHER_INSTANCE), { life: 'dying' });
    await h.watch();
    expect(await h.store.get(attachmentKey('data-1', OTHER_INSTANCE))).toBeUndefined();
    await h.settle(30_000);
    await h.watch();
    expect(await h.store.get(attachmentKey('data-1'))).toMatchObject({ life: 'alive', status: { state: 'attached' } });
    expect((await h.store.get(volumeKey('data-1')))?.status).toEqual(rejection);
    expect(h.ebs.calls.DetachVolume ?? 0).toBe(0);
  });

  it('an attachment rejected for a claim the system did not write keeps its rejection when its volume record is removed: nothing is written over it', async () => {
    const h = await attachedVolume();
    await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { claim: { owner: 'someone', expiresAt: h.clock.now() + 24 * 3_600_000 } });
    await h.watch();
    const rejected = await h.store.get(attachmentKey('data-1'));
    expect(rejected?.status).toMatchObject({ state: 'error', code: 'InvalidRecord', message: expect.stringMatching(/^claim\.expiresAt: /) });
    const counted = h.metrics.counter('InvalidRecords');

    await h.store.remove(volumeKey('data-1'));
    await h.watch();
    expect(await h.store.get(attachmentKey('data-1'))).toEqual(rejected);
    expect(h.metrics.counter('InvalidRecords')).toBe(counted);
    expect(sent(h)).toEqual([]);
  });

  it('a dying volume that was never created is removed without any EC2 call', async () => {
    const h = harness();
    const volume = newVolume('data-1', { life: 'dying' });
    await h.store.create(volume);
    await h.watcher.handle([insert(volume)]);
    expect(await h.store.get(volumeKey('data-1'))).toBeUndefined();
    expect(sent(h)).toEqual([]);
  });

  it('rejects a shrink with a reason naming the field and plans no modification', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await h.watch();
    await h.settle(30_000);
    const before = await h.store.get(volumeKey('data-1'));
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { spec: { sizeGiB: 5, volumeType: 'gp3', availabilityZone: AZ }, generation: 2 });
    await h.watch();
    const after = await h.store.get(volumeKey('data-1'));
    expect(after?.status).toMatchObject({ state: before!.status.state, code: 'InvalidSpecChange' });
    expect(after?.status.message).toMatch(/sizeGiB/);
    await h.drain();
    expect(h.ebs.calls.ModifyVolume ?? 0).toBe(0);
  });

  it('a failed store read is reported for redelivery, the rest of the batch goes on', async () => {
    const h = harness();
    const a = newVolume('a');
    const b = newVolume('b');
    await h.store.create(a);
    await h.store.create(b);
    h.store.failNext('get', new Error('DynamoDB unavailable'));
    const result = await h.watcher.handle([insert(a, 'ca'), insert(b, 'cb')]);
    expect(result.failedChangeIds).toEqual(['ca']);
    expect(sent(h)).toEqual([{ op: 'create-volume', key: 'b', delaySeconds: 0 }]);
  });
});
