/**
 * A volume record removed straight from the table (not through the API) while it still has
 * attachments: what each attachment says, and what deleting or retrying it through the API does.
 * The EC2 volume id went with the record, so nothing looks after that volume (the reconciler
 * reports it as leaked); deleting an attachment finds it by its tags and detaches it.
 */
import { describe, expect, it } from 'vitest';
import { VolumeService } from '../../lib/api/service.js';
import { ApiProblem } from '../../lib/api/problem.js';
import type { AttachmentRecord, VolumeRecord } from '../../lib/domain/records.js';
import { ProviderError, type RecordChanges } from '../../lib/engine/ports.js';
import { Reconciler } from '../../lib/engine/reconciler.js';
import { RecordingLog } from '../../lib/memory/log.js';
import { METRICS, OWNERSHIP_TAGS } from '../../lib/settings.js';
import { AZ, INSTANCE, OTHER_INSTANCE, START, attachmentKey, data1Created, harness, newAttachment, newVolume, volumeKey } from './engine-fixtures.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const KEY = attachmentKey('data-1');
/** An instance in another AZ than the volume: an attach to it fails for good. */
const ELSEWHERE = 'i-0aaaaaaaaaaaaaaa3';

type Harness = ReturnType<typeof harness>;

function setup() {
  const log = new RecordingLog();
  const h = harness({ log });
  h.ebs.addInstance({ instanceId: ELSEWHERE, availabilityZone: 'eu-west-1b' });
  const service = new VolumeService({ store: h.store, clock: h.clock });
  const reconciler = new Reconciler({ store: h.store, queue: h.queue, provider: h.ebs, clock: h.clock, metrics: h.metrics, log, config: { ownerTagValue: 'ebs-provisioner' } });
  return { h, log, service, reconciler };
}

const isoNow = (h: Harness) => new Date(h.clock.now()).toISOString();
const attachmentOf = async (h: Harness, key = KEY) => (await h.store.get(key)) as AttachmentRecord | undefined;
const ebsVolumeIdOf = async (h: Harness) => ((await h.store.get(volumeKey('data-1'))) as VolumeRecord).ebsVolumeId!;

/** Runs the pipeline (stream, queue, EBS) until the attachment of data-1 settles. */
async function settle(h: Harness, rounds = 3) {
  for (let i = 0; i < rounds; i++) {
    await h.watch();
    await h.settle(30_000);
  }
  await h.watch();
}

/** Writes what the system would have written on the attachment by now; its own stream copy is dropped (already handled). */
async function recordSays(h: Harness, changes: RecordChanges<AttachmentRecord>, key = KEY) {
  await h.store.update<AttachmentRecord>(key, changes);
  h.changes.splice(0);
}

async function attached(h: Harness) {
  await h.store.create(newVolume('data-1'));
  await h.store.create(newAttachment('data-1'));
  await settle(h);
  expect((await attachmentOf(h))?.status.state).toBe('attached');
}

/** `attached`, then its volume record removed from the table and its attachment deleted: its detach under way. Returns the removed record's EC2 volume. */
async function detachingOfRemovedRecord(h: Harness, service: VolumeService): Promise<string> {
  await attached(h);
  const volume = await ebsVolumeIdOf(h);
  await h.store.remove(volumeKey('data-1'));
  await h.watch();
  await service.deleteAttachment('data-1', INSTANCE);
  await h.watch();
  await h.drain();
  expect((await attachmentOf(h))?.status.state).toBe('detaching');
  return volume;
}

/** `attached`, then its volume record removed from the table and, once the watcher saw that, written again through the API. `first`: the removed record's EC2 volume. */
async function attachedThenWrittenAgain() {
  const world = setup();
  const { h, service } = world;
  await attached(h);
  const first = await ebsVolumeIdOf(h);
  await h.store.remove(volumeKey('data-1'));
  await h.watch();
  await h.clock.advance(1000);
  await service.createVolume({ volumeId: 'data-1', spec: { sizeGiB: 10, volumeType: 'gp3', availabilityZone: AZ } });
  await settle(h);
  return { ...world, first };
}

/** Where an attachment can stand when its volume record goes, and whether EC2 may hold it attached. */
const STATES: Record<string, { mayBeAttached: boolean; instanceId?: string; prepare: (h: Harness) => Promise<void> }> = {
  // Waiting for its volume, which EC2 is creating.
  pending: {
    mayBeAttached: false,
    prepare: async (h) => {
      await h.store.create(newVolume('data-1'));
      await h.store.create(newAttachment('data-1'));
      await h.watch();
      await h.drain();
      expect((await attachmentOf(h))?.status).toMatchObject({ state: 'pending', message: 'waiting for volume data-1 to become available' });
    },
  },
  // An AttachVolume whose answer was lost: EC2 attached it, the record kept its device and retries in a minute.
  'pending with a device kept': {
    mayBeAttached: true,
    prepare: async (h) => {
      await attached(h);
      const at = isoNow(h);
      await recordSays(h, {
        status: { state: 'pending', code: 'RequestTimeout', message: 'AttachVolume timed out', attempts: 1, updatedAt: at, operationStartedAt: at, nextAttemptAt: new Date(h.clock.now() + MINUTE).toISOString() },
      });
    },
  },
  // AttachVolume accepted; EC2 finished before the record heard of it.
  attaching: {
    mayBeAttached: true,
    prepare: async (h) => {
      await attached(h);
      const at = isoNow(h);
      await recordSays(h, { status: { state: 'attaching', message: 'attaching as /dev/sdf', attempts: 0, updatedAt: at, operationStartedAt: at } });
    },
  },
  attached: { mayBeAttached: true, prepare: attached },
  // Refused for good before anything was attached.
  error: {
    mayBeAttached: false,
    instanceId: ELSEWHERE,
    prepare: async (h) => {
      await h.store.create(newVolume('data-1'));
      await h.store.create(newAttachment('data-1', { instanceId: ELSEWHERE }));
      await settle(h);
      const record = await attachmentOf(h, attachmentKey('data-1', ELSEWHERE));
      expect(record?.status).toMatchObject({ state: 'error', code: 'InvalidVolume.ZoneMismatch' });
      expect(record?.device).toBeUndefined();
    },
  },
  // A check that gave up: EC2 may still hold it attached.
  'error with a device kept': {
    mayBeAttached: true,
    prepare: async (h) => {
      await attached(h);
      await recordSays(h, { status: { state: 'error', code: 'InternalError', message: 'boom (gave up after 8 failed attempts)', attempts: 8, updatedAt: isoNow(h) } });
    },
  },
};

/** The status each attachment says right after its volume record is removed. */
const SAYS = {
  pending: { state: 'pending', message: expect.stringMatching(/^waiting for volume record data-1, which is not in the table \(removed from it, or not written yet\); deleting this attachment removes it, nothing is attached$/) },
  error: {
    state: 'error',
    code: 'InvalidVolume.ZoneMismatch',
    message: 'volume record data-1 was removed from the table (or not written yet) after this attachment failed; nothing is attached: delete this attachment, or retry it once the volume record is written',
  },
  leftAttached: {
    state: 'error',
    code: 'VolumeRecordRemoved',
    message:
      `volume record data-1 was removed from the table while this attachment may be attached: the EC2 volume it held, if one exists, is left as it is, ` +
      `perhaps still attached to ${INSTANCE} as /dev/sdf, and the reconciler reports it as leaked. Deleting this attachment detaches from ${INSTANCE} ` +
      `the EC2 volumes tagged with that id, then removes this record; ` +
      `once it is gone, the volume record written again can be attached`,
  },
};

describe('a volume record removed from the table while it has attachments', () => {
  describe.each(Object.entries(STATES))('an attachment %s', (name, { mayBeAttached, instanceId = INSTANCE, prepare }) => {
    const expected: object = mayBeAttached ? SAYS.leftAttached : SAYS[name as 'pending' | 'error'];
    const key = attachmentKey('data-1', instanceId);

    it('says so at once, with no EC2 call; it attaches to nothing and nothing more is written while the record stays away', async () => {
      const { h, reconciler } = setup();
      await prepare(h);
      // Every state has its EC2 volume (the pending one's is being created), whose attachments are checked at the end.
      const ebsVolumeId = await ebsVolumeIdOf(h);
      expect(ebsVolumeId).toMatch(/^vol-/);
      const before = await attachmentOf(h, key);
      const calls = { ...h.ebs.calls };

      await h.store.remove(volumeKey('data-1'));
      await h.watch();
      const said = await attachmentOf(h, key);
      // Its failed attempts stay; no next attempt is announced.
      expect(said?.status).toEqual(expect.objectContaining({ ...expected, attempts: before!.status.attempts, updatedAt: isoNow(h) }));
      expect(said?.status.nextAttemptAt).toBeUndefined();
      expect(said?.device).toBe(before?.device);
      expect(h.ebs.calls).toEqual(calls);

      // Its own messages (a retry, a progress check) and the reconciler find nothing to do.
      await h.clock.advance(10 * MINUTE);
      await h.drain();
      await h.watch();
      await reconciler.run();
      await h.settle(10 * MINUTE, 10_000);
      await h.watch();
      expect(await attachmentOf(h, key)).toEqual(said);
      expect(h.ebs.calls.AttachVolume ?? 0).toBe(calls.AttachVolume ?? 0);
      expect(h.ebs.calls.DetachVolume ?? 0).toBe(0);
      expect(h.ebs.volume(ebsVolumeId)?.attachments.map((a) => a.instanceId)).toEqual(mayBeAttached ? [INSTANCE] : []);
    });

    it(`deleted through the API, ${mayBeAttached ? 'the EC2 volume tagged with its id is detached from its instance, then its record goes' : 'its record goes without an EC2 call'}`, async () => {
      const { h, log, service, reconciler } = setup();
      await prepare(h);
      await h.drain();
      const ebsVolumeId = h.ebs.volumes()[0]!.ebsVolumeId;
      await h.store.remove(volumeKey('data-1'));
      await h.watch();
      const calls = { ...h.ebs.calls };

      const answer = await service.deleteAttachment('data-1', instanceId);
      // The answer still shows what the status said: what deleting it does.
      expect(answer).toMatchObject({ life: 'dying', status: expected });
      await h.watch();
      await h.settle(MINUTE);
      expect(await attachmentOf(h, key)).toBeUndefined();
      expect(h.ebs.volume(ebsVolumeId)?.attachments).toEqual([]);
      const removal = log.entries.filter((entry) => entry.attributes?.key === `attachment/data-1/${instanceId}` && /^(attachment )?record removed/.test(entry.message));
      expect(removal.map((entry) => entry.level)).toEqual(['info']);
      if (mayBeAttached) {
        // One DetachVolume, of the volume its tags name, from its instance; the record went once EC2 showed it detached.
        expect(h.ebs.calls).toEqual({ ...calls, DescribeVolumes: h.ebs.calls.DescribeVolumes, DetachVolume: 1 });
        expect(log.entries).toContainEqual({
          level: 'info',
          message: 'volume record removed from the table; found its EC2 volumes by their tags',
          attributes: { key: `attachment/data-1/${INSTANCE}`, found: [ebsVolumeId], attachedHere: [ebsVolumeId] },
        });
        expect(h.metrics.counter(METRICS.orphanVolumesFound)).toBe(1);
      } else {
        expect(h.ebs.calls).toEqual({ ...calls, DescribeVolumes: h.ebs.calls.DescribeVolumes });
        expect(h.ebs.calls.DetachVolume ?? 0).toBe(0);
      }

      // The EC2 volume itself stays, no longer attached: the reconciler reports it.
      await h.clock.advance(10 * MINUTE);
      const report = await reconciler.run();
      expect(report.leaked).toEqual([ebsVolumeId]);
      const leakLine = log.entries.find((entry) => /have no record/.test(entry.message));
      expect(leakLine?.attributes).toEqual({ ebsVolumeIds: [ebsVolumeId] });
    });

    it('retried through the API while the volume record is missing: 409 saying why, nothing written', async () => {
      const { h, service } = setup();
      await prepare(h);
      await h.store.remove(volumeKey('data-1'));
      await h.watch();
      const before = await attachmentOf(h, key);
      const problem = await service.retryAttachment('data-1', instanceId).catch((error: unknown) => error);
      expect(problem).toBeInstanceOf(ApiProblem);
      expect(problem).toMatchObject({
        kind: 'conflict',
        detail: `attachment of data-1 to ${instanceId} ${
          before?.status.state !== 'error'
            ? 'is pending, not in error: there is nothing to retry'
            : mayBeAttached
              ? `cannot be retried: it may still hold the EC2 volume of the removed volume record data-1 attached to ${instanceId} as ${before.device}; delete this attachment (the volumes tagged with that id are detached from the instance), then attach the volume again`
              : 'cannot be retried: volume record data-1 does not exist; create the volume again first, or delete the attachment'
        }`,
      });
      expect(await attachmentOf(h, key)).toEqual(before);
    });
  });

  it('a pending attachment whose attach was already queued does not attach when its message arrives', async () => {
    const { h } = setup();
    await data1Created(h);
    await h.store.create(newAttachment('data-1'));
    await h.watch();
    expect(h.queued()).toEqual([{ op: 'attach', key: `data-1/${INSTANCE}`, delaySeconds: 0 }]);

    await h.store.remove(volumeKey('data-1'));
    await h.drain();
    expect(h.ebs.calls.AttachVolume ?? 0).toBe(0);
    expect((await attachmentOf(h))?.status).toMatchObject(SAYS.pending);
    // The stream's removal then finds the status already written.
    const version = (await attachmentOf(h))!.version;
    await h.watch();
    expect((await attachmentOf(h))!.version).toBe(version);
  });

  it('the executor, meeting an attachment before the stream brings the removal, writes what the watcher would: each writes it once', async () => {
    const { h, log } = setup();
    await STATES['pending with a device kept']!.prepare(h);
    await h.store.remove(volumeKey('data-1'));
    const removal = h.changes.splice(0);
    await h.clock.advance(MINUTE);
    await h.executor.run(h.batchOf(h.op('attach', KEY), h.op('check-attachment', KEY)));
    const written = await attachmentOf(h);
    expect(written?.status).toEqual({ ...SAYS.leftAttached, attempts: 1, updatedAt: isoNow(h) });
    expect(log.entries.filter((entry) => entry.level === 'warn' && /attachment is left as it is/.test(entry.message))).toHaveLength(1);
    // The removal, delivered late and twice, writes nothing more.
    await h.watcher.handle(removal);
    await h.watcher.handle(removal);
    expect(await attachmentOf(h)).toEqual(written);
    expect(h.ebs.calls.AttachVolume).toBe(1);
  });

  it('a dying attachment whose detach had not been made yet detaches the volume its tags name; one detaching, with nothing attached to its instance, is removed at its check', async () => {
    const { h } = setup();
    await attached(h);
    await h.store.create(newAttachment('data-1', { instanceId: ELSEWHERE }));
    h.changes.splice(0);
    const at = isoNow(h);
    // The client asked for both to go; the detach of the first is queued, the second's was accepted by EC2.
    await recordSays(h, { life: 'dying' });
    await recordSays(h, { life: 'dying', device: '/dev/sdg', status: { state: 'detaching', message: 'detaching', attempts: 0, updatedAt: at, operationStartedAt: at } }, attachmentKey('data-1', ELSEWHERE));
    await h.queue.send([{ message: h.op('check-attachment', attachmentKey('data-1', ELSEWHERE)), delaySeconds: 5 }]);

    const volume = await ebsVolumeIdOf(h);
    await h.store.remove(volumeKey('data-1'));
    // The removal has the first detach at once.
    await h.watch();
    expect(h.queued()).toContainEqual({ op: 'detach', key: `data-1/${INSTANCE}`, delaySeconds: 0 });
    await h.settle(MINUTE);
    expect(await attachmentOf(h)).toBeUndefined();
    expect(await attachmentOf(h, attachmentKey('data-1', ELSEWHERE))).toBeUndefined();
    expect(h.ebs.calls.DetachVolume).toBe(1);
    expect(h.ebs.volume(volume)?.attachments).toEqual([]);
  });

  it('written again straight into the table, rejected (a claim beyond the lease), before the watcher saw the removal: its attachment still says at once what the removal leaves it', async () => {
    const { h } = setup();
    await attached(h);
    await h.clock.advance(1000);
    await h.store.remove(volumeKey('data-1'));
    h.store.putRaw(newVolume('data-1', { createdAt: isoNow(h), claim: { owner: 'someone', expiresAt: h.clock.now() + HOUR } }));
    await h.watch();
    expect((await h.store.get(volumeKey('data-1')))?.status).toMatchObject({ state: 'error', code: 'InvalidRecord', message: expect.stringMatching(/^claim\.expiresAt: /) });
    expect((await attachmentOf(h))?.status).toMatchObject(SAYS.leftAttached);
    expect(h.ebs.calls.DetachVolume ?? 0).toBe(0);
  });

  it.each([
    ['that does not parse', { spec: { sizeGiB: -5, volumeType: 'gp3' } }, 'volume record data-1 is not valid (its status says why); the attach waits until its client puts it right'],
    ['with a claim beyond the lease', { claim: { owner: 'someone', expiresAt: START + 10 * HOUR } }, 'volume data-1 is in error: InvalidRecord; the attach waits until the volume is retried'],
  ])('written again straight into the table, rejected as invalid (%s): an attachment that waited for it no longer says the record is not in the table, and attaches once the record is put right', async (_, invalid, says) => {
    const { h } = setup();
    await STATES.pending!.prepare(h);
    await h.store.remove(volumeKey('data-1'));
    await h.watch();
    expect((await attachmentOf(h))?.status).toMatchObject(SAYS.pending);
    await h.clock.advance(1000);
    h.store.putRaw({ ...newVolume('data-1', { createdAt: isoNow(h) }), ...invalid });
    await h.watch();
    await h.watch();
    expect((await h.store.get(volumeKey('data-1')))?.status).toMatchObject({ state: 'error', code: 'InvalidRecord' });
    expect((await attachmentOf(h))?.status).toEqual({ state: 'pending', message: says, attempts: 0, updatedAt: isoNow(h) });

    await h.store.update<VolumeRecord>(volumeKey('data-1'), { spec: newVolume('data-1').spec, claim: null } as RecordChanges<VolumeRecord>);
    await settle(h);
    expect((await attachmentOf(h))?.status.state).toBe('attached');
    expect(h.ebs.calls.AttachVolume).toBe(1);
  });

  describe('written again through the API under the same id', () => {
    it('an attachment that waited for it waits for the new volume, then attaches it', async () => {
      const { h, service } = setup();
      await STATES.pending!.prepare(h);
      await h.store.remove(volumeKey('data-1'));
      await h.watch();
      await h.settle(MINUTE);
      expect((await attachmentOf(h))?.status).toMatchObject(SAYS.pending);
      const first = h.ebs.volumes()[0]!.ebsVolumeId;

      await service.createVolume({ volumeId: 'data-1', spec: { sizeGiB: 10, volumeType: 'gp3', availabilityZone: AZ } });
      await h.watch();
      expect((await attachmentOf(h))?.status).toMatchObject({ state: 'pending', message: 'waiting for volume data-1 to become available' });
      await settle(h);
      const second = await ebsVolumeIdOf(h);
      expect(second).not.toBe(first);
      expect(await attachmentOf(h)).toMatchObject({ status: { state: 'attached' }, device: '/dev/sdf' });
      expect(h.ebs.volume(second)?.attachments.map((a) => a.instanceId)).toEqual([INSTANCE]);
      expect(h.ebs.calls.AttachVolume).toBe(1);
    });

    it('an attachment left attached to the removed record\'s volume stays in error, attaching nothing; a retry is refused; deleted, it detaches that volume, and the new one is attached when asked', async () => {
      const { h, service, reconciler } = setup();
      await attached(h);
      const first = await ebsVolumeIdOf(h);
      await h.store.remove(volumeKey('data-1'));
      await h.watch();
      const said = await attachmentOf(h);
      expect(said?.status).toMatchObject(SAYS.leftAttached);

      // Asking again for the attachment is refused, saying what to do: it would never attach the new record's volume.
      await h.clock.advance(1000);
      const spec = { sizeGiB: 10, volumeType: 'gp3' as const, availabilityZone: AZ };
      const refusal = `the attachment of data-1 to ${INSTANCE} belongs to a removed volume record data-1 and never attaches the volume of the current one: ` +
        "it may still hold the removed record's EC2 volume as /dev/sdf; delete this attachment (the volumes tagged with that id are detached from the instance), then attach the volume again";
      const asked = await service.createVolume({ volumeId: 'data-1', spec, attachTo: { instanceId: INSTANCE } }).catch((error: unknown) => error);
      expect([(asked as ApiProblem).kind, (asked as ApiProblem).detail]).toEqual(['conflict', refusal]);
      expect(await h.store.get(volumeKey('data-1'))).toBeUndefined();
      await service.createVolume({ volumeId: 'data-1', spec });
      const put = await service.putAttachment('data-1', INSTANCE, {}).catch((error: unknown) => error);
      expect([(put as ApiProblem).kind, (put as ApiProblem).detail]).toEqual(['conflict', refusal]);
      await settle(h);
      const second = await ebsVolumeIdOf(h);
      expect(await attachmentOf(h)).toEqual(said);
      expect(h.ebs.calls.AttachVolume).toBe(1);
      // In error with a device kept, but not toward the new record's volume: the reconciler has nothing looked at again.
      await h.clock.advance(10 * MINUTE);
      expect((await reconciler.run()).requeued.map((r) => r.key)).not.toContain(`attachment/data-1/${INSTANCE}`);

      // Retried, it would attach the new volume beside the first: refused, saying what to do, nothing written.
      const retry = await service.retryAttachment('data-1', INSTANCE).catch((error: unknown) => error);
      expect(retry).toBeInstanceOf(ApiProblem);
      expect((retry as ApiProblem).kind).toBe('conflict');
      expect((retry as ApiProblem).detail).toBe(
        `attachment of data-1 to ${INSTANCE} cannot be retried: it may still hold the EC2 volume of the removed volume record data-1 attached to ${INSTANCE} as /dev/sdf; ` +
          'delete this attachment (the volumes tagged with that id are detached from the instance), then attach the volume again',
      );
      expect(await attachmentOf(h)).toEqual(said);

      await service.deleteAttachment('data-1', INSTANCE);
      await settle(h);
      expect(await attachmentOf(h)).toBeUndefined();
      expect(h.ebs.volume(first)?.attachments).toEqual([]);
      await service.putAttachment('data-1', INSTANCE, {});
      await settle(h);
      expect(await attachmentOf(h)).toMatchObject({ status: { state: 'attached', attempts: 0 } });
      expect(h.ebs.volume(second)?.attachments.map((a) => a.instanceId)).toEqual([INSTANCE]);
      // The first volume stays, detached, and is reported.
      await h.clock.advance(10 * MINUTE);
      expect((await reconciler.run()).leaked).toEqual([first]);
    });

    it('an attachment that may hold the removed record\'s volume is not retried by a generation bump written straight into the table either', async () => {
      const { h, first } = await attachedThenWrittenAgain();
      const said = await attachmentOf(h);
      expect(said?.status).toMatchObject(SAYS.leftAttached);

      await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { generation: (said?.generation ?? 1) + 1 });
      await settle(h);
      expect((await attachmentOf(h))?.status).toEqual(said?.status);
      expect(h.ebs.calls.AttachVolume).toBe(1);
      expect(h.ebs.volume(first)?.attachments).toMatchObject([{ instanceId: INSTANCE, device: '/dev/sdf', state: 'attached' }]);
      expect(h.ebs.volume(await ebsVolumeIdOf(h))?.attachments).toEqual([]);
    });

    it('written again straight into the table by a client whose clock is behind (createdAt before the attachment\'s last write): the attachment is still not attached beside the removed record\'s volume', async () => {
      const { h, reconciler } = setup();
      await attached(h);
      const first = await ebsVolumeIdOf(h);
      await h.clock.advance(60 * 60_000);
      await h.store.remove(volumeKey('data-1'));
      h.store.putRaw(newVolume('data-1', { createdAt: new Date(h.clock.now() - 2 * 60 * 60_000 + 1000).toISOString(), version: 1 }));
      await settle(h);
      for (let pass = 0; pass < 3; pass++) {
        await h.clock.advance(6 * 60_000);
        await reconciler.run();
        await settle(h);
      }
      expect((await attachmentOf(h))?.status).toMatchObject(SAYS.leftAttached);
      expect(h.ebs.calls.AttachVolume).toBe(1);
      expect(h.ebs.volume(first)?.attachments).toMatchObject([{ instanceId: INSTANCE, state: 'attached' }]);
      expect(h.ebs.volume(await ebsVolumeIdOf(h))?.attachments).toEqual([]);
    });

    it('written again before the watcher saw the removal: an attached attachment still says it may be attached to the removed record\'s volume, is not attached again, and deleted detaches that volume alone', async () => {
      const { h, service } = setup();
      await attached(h);
      const first = await ebsVolumeIdOf(h);
      await h.clock.advance(1000);
      await h.store.remove(volumeKey('data-1'));
      await service.createVolume({ volumeId: 'data-1', spec: { sizeGiB: 10, volumeType: 'gp3', availabilityZone: AZ } });
      await h.watch();
      expect((await attachmentOf(h))?.status).toMatchObject(SAYS.leftAttached);
      // The removal is not read as the record letting go of its volume: no look at the attachment is queued for it.
      expect(h.queue.pending().filter((p) => p.message.op === 'check-attachment')).toEqual([]);
      await settle(h);
      expect((await attachmentOf(h))?.status).toMatchObject(SAYS.leftAttached);
      expect(h.ebs.calls.AttachVolume).toBe(1);
      // Deleted, it detaches the removed record's volume, found by its tag; the new record's volume, attached nowhere, is left alone.
      const second = await ebsVolumeIdOf(h);
      await service.deleteAttachment('data-1', INSTANCE);
      await h.watch();
      await h.drain();
      expect(await attachmentOf(h)).toMatchObject({ status: { state: 'detaching' } });
      // A check while EC2 still detaches it looks at the volumes its tags name, not at the new record's.
      await h.executor.run(h.batchOf(h.op('check-attachment', KEY)));
      expect(await attachmentOf(h)).toMatchObject({ status: { state: 'detaching' } });
      await settle(h);
      expect(await attachmentOf(h)).toBeUndefined();
      expect(h.ebs.calls.DetachVolume).toBe(1);
      expect(h.ebs.volume(first)?.attachments).toEqual([]);
      expect(h.ebs.volume(second)?.state).toBe('available');
      expect(((await h.store.get(volumeKey('data-1'))) as VolumeRecord).status.state).toBe('available');
    });

    it('written again, then deleted: a DetachVolume that fails (its status no longer saying the record was removed) is made again of the removed record\'s volume', async () => {
      const { h, service } = setup();
      await attached(h);
      const first = await ebsVolumeIdOf(h);
      await h.clock.advance(1000);
      await h.store.remove(volumeKey('data-1'));
      await h.watch();
      await service.createVolume({ volumeId: 'data-1', spec: { sizeGiB: 10, volumeType: 'gp3', availabilityZone: AZ } });
      await settle(h);
      h.ebs.failNext('DetachVolume', new ProviderError('transient', 'InternalError', 'An internal error has occurred'));
      await service.deleteAttachment('data-1', INSTANCE);
      await h.watch();
      await h.drain();
      expect(await attachmentOf(h)).toMatchObject({ life: 'dying', status: { code: 'InternalError', attempts: 1 } });
      await settle(h);
      expect(await attachmentOf(h)).toBeUndefined();
      expect(h.ebs.calls.DetachVolume).toBe(2);
      expect(h.ebs.volume(first)?.attachments).toEqual([]);
    });

    it('a late copy of the removal changes nothing for an attachment of the new record', async () => {
      const { h, service } = setup();
      await attached(h);
      await h.clock.advance(1000);
      await h.store.remove(volumeKey('data-1'));
      const removal = h.changes.splice(0);
      await h.watcher.handle(removal);
      await service.deleteAttachment('data-1', INSTANCE);
      await settle(h);
      await h.clock.advance(1000);
      await service.createVolume({ volumeId: 'data-1', spec: { sizeGiB: 10, volumeType: 'gp3', availabilityZone: AZ }, attachTo: { instanceId: INSTANCE } });
      await settle(h, 4);
      const attachedAgain = await attachmentOf(h);
      expect(attachedAgain?.status.state).toBe('attached');
      await h.watcher.handle(removal);
      expect(await attachmentOf(h)).toEqual(attachedAgain);
    });
  });

  it('when the watcher never saw the removal (its stream batch given up), the reconciler has the executor write what the attachment says', async () => {
    const { h, reconciler } = setup();
    await attached(h);
    await h.store.remove(volumeKey('data-1'));
    h.changes.splice(0);
    await h.clock.advance(10 * MINUTE);
    const report = await reconciler.run();
    expect(report.requeued).toEqual([{ key: `attachment/data-1/${INSTANCE}`, reason: 'volume record data-1 was removed from the table while this attachment may be attached' }]);
    await h.drain();
    expect((await attachmentOf(h))?.status).toMatchObject(SAYS.leftAttached);
    await h.clock.advance(10 * MINUTE);
    expect((await reconciler.run()).requeued).toEqual([]);
  });

  it('when the watcher never saw the removal, a dying attachment is detached by the executor the reconciler sends', async () => {
    const { h, reconciler } = setup();
    await attached(h);
    const volume = await ebsVolumeIdOf(h);
    await recordSays(h, { life: 'dying' });
    await h.store.remove(volumeKey('data-1'));
    h.changes.splice(0);
    await h.clock.advance(10 * MINUTE);
    expect((await reconciler.run()).requeued).toEqual([
      { key: `attachment/data-1/${INSTANCE}`, reason: `work pending (dying; volume record data-1 was removed from the table: detaching the EC2 volumes tagged with its id from ${INSTANCE})` },
    ]);
    await h.settle(MINUTE);
    expect(await attachmentOf(h)).toBeUndefined();
    expect(h.ebs.calls.DetachVolume).toBe(1);
    expect(h.ebs.volume(volume)?.attachments).toEqual([]);
  });
});

describe('deleting an attachment whose volume record was removed from the table', () => {
  /** Attached, its volume record removed (the watcher saw it), then deleted through the API: its detach is queued. */
  async function orphaned() {
    const env = setup();
    await attached(env.h);
    const volume = await ebsVolumeIdOf(env.h);
    await env.h.store.remove(volumeKey('data-1'));
    await env.h.watch();
    await env.service.deleteAttachment('data-1', INSTANCE);
    await env.h.watch();
    expect(env.h.queued()).toEqual([{ op: 'detach', key: `data-1/${INSTANCE}`, delaySeconds: 0 }]);
    return { ...env, volume };
  }

  it.each([false, true])(
    'a detach by tags EC2 does not finish within the age limit ends in error keeping its device, looks again after the longest backoff, and the record goes only once EC2 shows it detached (written again: %s)',
    async (writtenAgain) => {
      const h = harness({ config: { maxOperationAgeMs: HOUR }, ebsTimings: { detach: 90 * MINUTE } });
      const service = new VolumeService({ store: h.store, clock: h.clock });
      await attached(h);
      const first = await ebsVolumeIdOf(h);
      await h.clock.advance(1000);
      await h.store.remove(volumeKey('data-1'));
      await h.watch();
      if (writtenAgain) {
        await service.createVolume({ volumeId: 'data-1', spec: { sizeGiB: 10, volumeType: 'gp3', availabilityZone: AZ } });
        await settle(h);
      }
      await service.deleteAttachment('data-1', INSTANCE);
      for (let minute = 0; minute < 70; minute++) {
        await h.watch();
        await h.settle(MINUTE, 10_000);
      }
      const stuck = await attachmentOf(h);
      expect(stuck).toMatchObject({ life: 'dying', status: { state: 'error', code: 'Timeout' }, device: '/dev/sdf' });
      expect(h.ebs.volume(first)?.attachments).toMatchObject([{ instanceId: INSTANCE, state: 'detaching' }]);

      for (let minute = 0; minute < 40; minute++) {
        await h.watch();
        await h.settle(MINUTE, 10_000);
      }
      expect(await attachmentOf(h)).toBeUndefined();
      expect(h.ebs.volume(first)?.attachments).toEqual([]);
      expect(h.ebs.calls.DetachVolume).toBe(1);
    },
  );

  it('duplicate and late detach messages make no second DetachVolume', async () => {
    const { h, volume } = await orphaned();
    await h.executor.run(h.batchOf(h.op('detach', KEY), h.op('detach', KEY)));
    expect(h.ebs.calls.DetachVolume).toBe(1);
    expect((await attachmentOf(h))?.status).toMatchObject({ state: 'detaching', message: 'detaching' });
    // A copy delivered after the first took: the record says detaching, so only a check.
    await h.executor.run(h.batchOf(h.op('detach', KEY)));
    expect(h.ebs.calls.DetachVolume).toBe(1);
    await h.settle(MINUTE);
    expect(await attachmentOf(h)).toBeUndefined();
    expect(h.ebs.volume(volume)?.attachments).toEqual([]);
    // One after the record went: nothing to do.
    await h.executor.run(h.batchOf(h.op('detach', KEY)));
    expect(h.ebs.calls.DetachVolume).toBe(1);
  });

  it('the record goes only once EC2 shows the volume detached', async () => {
    const { h, volume } = await orphaned();
    await h.drain();
    expect(h.ebs.volume(volume)?.attachments).toMatchObject([{ instanceId: INSTANCE, state: 'detaching' }]);
    expect((await attachmentOf(h))?.status.state).toBe('detaching');
    // EBS takes 2 s to detach; a check before then finds it detaching still.
    await h.executor.run(h.batchOf(h.op('check-attachment', KEY)));
    expect((await attachmentOf(h))?.status.state).toBe('detaching');
    await h.settle(MINUTE);
    expect(await attachmentOf(h)).toBeUndefined();
  });

  it('a volume record written again while the detach is under way: the attachment goes only once EC2 shows the removed record\'s volume detached', async () => {
    const h = harness({ ebsTimings: { detach: 30 * MINUTE } });
    const service = new VolumeService({ store: h.store, clock: h.clock });
    const volume = await detachingOfRemovedRecord(h, service);

    await h.clock.advance(1000);
    await service.createVolume({ volumeId: 'data-1', spec: { sizeGiB: 10, volumeType: 'gp3', availabilityZone: AZ } });
    await h.watch();
    await h.settle(10 * MINUTE, 10_000);
    await h.watch();
    // EC2 still detaching the removed record's volume: the attachment still says so.
    expect(h.ebs.volume(volume)?.attachments).toMatchObject([{ instanceId: INSTANCE, state: 'detaching' }]);
    expect((await attachmentOf(h))?.status.state).toBe('detaching');
    await h.settle(30 * MINUTE, 30_000);
    expect(h.ebs.volume(volume)?.attachments).toEqual([]);
    expect(await attachmentOf(h)).toBeUndefined();
    expect(h.ebs.calls.DetachVolume).toBe(1);
  });

  it('forced while its detach is under way: the detach is not forced (no volume record to force it by), and no second chain of detaches runs beside its checks', async () => {
    async function run(force: boolean) {
      const h = harness({ ebsTimings: { detach: 30 * MINUTE } });
      const service = new VolumeService({ store: h.store, clock: h.clock });
      const volume = await detachingOfRemovedRecord(h, service);
      if (force) {
        await service.deleteAttachment('data-1', INSTANCE, undefined, true);
        await h.watch();
        // The client's change brings a look beside its check, no detach.
        expect(h.queued().filter((m) => m.op !== 'check-attachment')).toEqual([]);
      }
      await h.settle(10 * MINUTE, 10_000);
      expect(h.ebs.volume(volume)?.attachments).toMatchObject([{ instanceId: INSTANCE, state: 'detaching' }]);
      await h.settle(30 * MINUTE, 30_000);
      expect(await attachmentOf(h)).toBeUndefined();
      expect(h.ebs.calls.DetachVolume).toBe(1);
      return h.ebs.calls.DescribeVolumes;
    }
    // Its searches by tags: the unforced detach's, and that one look.
    expect(await run(true)).toBe((await run(false)) + 1);
  });

  it('set back to alive straight into the table during its detach: kept once EC2 shows the volume detached, waiting for its volume record, and attaches the one written again', async () => {
    const h = harness({ ebsTimings: { detach: 30 * MINUTE } });
    const service = new VolumeService({ store: h.store, clock: h.clock });
    const first = await detachingOfRemovedRecord(h, service);

    await h.store.update<AttachmentRecord>(KEY, { life: 'alive' });
    await h.watch();
    await h.settle(40 * MINUTE, 30_000);
    await h.watch();
    expect(h.ebs.volume(first)?.attachments).toEqual([]);
    const kept = await attachmentOf(h);
    expect(kept).toMatchObject({ life: 'alive', status: SAYS.pending });
    expect(kept?.device).toBeUndefined();
    expect(h.ebs.calls.AttachVolume).toBe(1);

    await service.createVolume({ volumeId: 'data-1', spec: { sizeGiB: 10, volumeType: 'gp3', availabilityZone: AZ } });
    await settle(h);
    const second = await ebsVolumeIdOf(h);
    expect(await attachmentOf(h)).toMatchObject({ life: 'alive', status: { state: 'attached' } });
    expect(h.ebs.volume(second)?.attachments).toMatchObject([{ instanceId: INSTANCE, state: 'attached' }]);
    expect(h.ebs.volume(first)?.attachments).toEqual([]);
  });

  it('a volume record written again straight into the table while the detach is under way, one that does not parse: the attachment still goes once EC2 shows the removed record\'s volume detached', async () => {
    const h = harness({ ebsTimings: { detach: 5 * MINUTE } });
    const service = new VolumeService({ store: h.store, clock: h.clock });
    const volume = await detachingOfRemovedRecord(h, service);

    await h.clock.advance(1000);
    h.store.putRaw({ ...newVolume('data-1', { createdAt: isoNow(h) }), spec: { sizeGiB: -5, volumeType: 'gp3' } });
    await h.watch();
    await h.settle(10 * MINUTE, 10_000);
    await h.watch();
    expect(h.ebs.volume(volume)?.attachments).toEqual([]);
    expect(await attachmentOf(h)).toBeUndefined();
    expect(h.ebs.calls.DetachVolume).toBe(1);
    // The record written again is left as it is, rejected.
    expect((await h.store.get(volumeKey('data-1')))?.status).toMatchObject({ state: 'error', code: 'InvalidRecord' });
  });

  it('deleted once its volume record was written again straight into the table, one that does not parse: the removed record\'s volume is detached, then the attachment goes', async () => {
    const { h, service } = setup();
    await attached(h);
    const volume = await ebsVolumeIdOf(h);
    await h.store.remove(volumeKey('data-1'));
    await h.watch();
    await h.clock.advance(1000);
    h.store.putRaw({ ...newVolume('data-1', { createdAt: isoNow(h) }), spec: { sizeGiB: -5, volumeType: 'gp3' } });
    await h.watch();
    await service.deleteAttachment('data-1', INSTANCE);
    await h.watch();
    expect(h.queued()).toEqual([{ op: 'detach', key: `data-1/${INSTANCE}`, delaySeconds: 0 }]);
    await h.settle(MINUTE);
    expect(h.ebs.volume(volume)?.attachments).toEqual([]);
    expect(await attachmentOf(h)).toBeUndefined();
    expect(h.ebs.calls.DetachVolume).toBe(1);
  });

  it('a volume detached outside the provisioner meanwhile: no DetachVolume, the record goes at once', async () => {
    const { h, log, service } = setup();
    await attached(h);
    const volume = await ebsVolumeIdOf(h);
    await h.store.remove(volumeKey('data-1'));
    await h.watch();
    await h.ebs.detachVolume({ ebsVolumeId: volume, instanceId: INSTANCE });
    await h.clock.advance(5_000);
    const calls = h.ebs.calls.DetachVolume;
    await service.deleteAttachment('data-1', INSTANCE);
    await h.watch();
    await h.drain();
    expect(await attachmentOf(h)).toBeUndefined();
    expect(h.ebs.calls.DetachVolume).toBe(calls);
    expect(log.entries).toContainEqual(expect.objectContaining({ message: 'volume record removed from the table; found its EC2 volumes by their tags', attributes: { key: `attachment/data-1/${INSTANCE}`, found: [volume], attachedHere: [] } }));
  });

  it('EC2 answering that the volume is gone, or no longer attached, is a detach already done', async () => {
    for (const error of [
      new ProviderError('not-found', 'InvalidVolume.NotFound', 'The volume does not exist.'),
      new ProviderError('not-attached', 'IncorrectState', 'The volume is in the available state.'),
    ]) {
      const { h } = await orphaned();
      h.ebs.failNext('DetachVolume', error);
      await h.drain();
      expect(await attachmentOf(h)).toBeUndefined();
      expect(h.ebs.calls.DetachVolume).toBe(1);
    }
  });

  it('a DetachVolume EC2 refuses for now, or a failed search, is retried as any detach', async () => {
    const { h, volume } = await orphaned();
    h.ebs.failNext('DescribeVolumes', new ProviderError('transient', 'InternalError', 'boom'));
    await h.drain();
    // It stays as the removal left it, with its next attempt scheduled.
    expect((await attachmentOf(h))?.status).toMatchObject({ state: 'error', code: 'InternalError', attempts: 1, nextAttemptAt: expect.any(String) });
    expect(h.ebs.calls.DetachVolume ?? 0).toBe(0);
    h.ebs.failNext('DetachVolume', new ProviderError('incorrect-state', 'IncorrectState', 'The volume is busy.'));
    await h.settle(MINUTE);
    expect(await attachmentOf(h)).toBeUndefined();
    expect(h.ebs.calls.DetachVolume).toBe(2);
    expect(h.ebs.volume(volume)?.attachments).toEqual([]);
  });

  it('a search or a DetachVolume that fails for good is tried again after the longest backoff, not at once', async () => {
    for (const fail of ['search', 'DetachVolume'] as const) {
      const { h, volume } = await orphaned();
      const denied = new ProviderError('unauthorized', 'UnauthorizedOperation', 'You are not authorized to perform this operation.');
      const search = h.ebs.findOwnedVolumes.bind(h.ebs);
      let searches = 0;
      h.ebs.findOwnedVolumes = async (recordVolumeId) => {
        searches++;
        if (fail === 'search') throw denied;
        return search(recordVolumeId);
      };
      if (fail === 'DetachVolume') h.ebs.failNext('DetachVolume', denied, 1000);
      // 8 attempts with backoff (about 8 minutes), then one every 15 minutes.
      await h.settle(30 * MINUTE, 10_000);
      expect((await attachmentOf(h))?.status).toMatchObject({ state: 'error', code: 'UnauthorizedOperation', message: expect.stringMatching(/being deleted: trying again at /), nextAttemptAt: expect.any(String) });
      expect(searches).toBeLessThanOrEqual(10);

      // Allowed again: the next try detaches it.
      h.ebs.findOwnedVolumes = search;
      h.ebs.failNext('DetachVolume', denied, 0);
      await h.settle(20 * MINUTE, 10_000);
      expect(await attachmentOf(h)).toBeUndefined();
      expect(h.ebs.volume(volume)?.attachments).toEqual([]);
    }
  });

  it('a record id used again: every volume tagged with it that is attached to the instance is detached, and no other', async () => {
    const { h, service, first } = await attachedThenWrittenAgain();
    const second = await ebsVolumeIdOf(h);
    // Its volume attached to the instance outside the system, beside the first.
    await h.ebs.attachVolume({ ebsVolumeId: second, instanceId: INSTANCE, device: '/dev/sdg' });
    await h.clock.advance(5_000);
    expect(h.ebs.volume(second)?.attachments.map((a) => a.instanceId)).toEqual([INSTANCE]);
    // A third volume under the same id, attached to another instance only.
    const { ebsVolumeId: third } = await h.ebs.createVolume({
      clientToken: 'third',
      availabilityZone: AZ,
      spec: { sizeGiB: 1, volumeType: 'gp3' },
      tags: { [OWNERSHIP_TAGS.owner]: 'ebs-provisioner', [OWNERSHIP_TAGS.record]: 'data-1' },
    });
    await h.clock.advance(5_000);
    await h.ebs.attachVolume({ ebsVolumeId: third, instanceId: OTHER_INSTANCE, device: '/dev/sdh' });
    await h.clock.advance(5_000);

    await h.store.remove(volumeKey('data-1'));
    await h.watch();
    const detaches = h.ebs.calls.DetachVolume ?? 0;
    await service.deleteAttachment('data-1', INSTANCE);
    await h.watch();
    await h.settle(MINUTE);
    expect(await attachmentOf(h)).toBeUndefined();
    expect(h.ebs.calls.DetachVolume).toBe(detaches + 2);
    expect(h.ebs.volume(first)?.attachments).toEqual([]);
    expect(h.ebs.volume(second)?.attachments).toEqual([]);
    expect(h.ebs.volume(third)?.attachments.map((a) => a.instanceId)).toEqual([OTHER_INSTANCE]);
    expect(h.metrics.counter(METRICS.orphanVolumesFound)).toBe(2);
  });
});

describe('a volume record written straight into the table whose createdAt is ahead of the system\'s clock (its writer\'s clock is fast)', () => {
  it('is the record its attachment attached: the attachment is looked after as any other, and detached when deleted', async () => {
    const { h, service, reconciler } = setup();
    await h.store.create(newVolume('data-1', { createdAt: new Date(START + 10 * MINUTE).toISOString() }));
    await h.store.create(newAttachment('data-1'));
    await settle(h);
    const record = await attachmentOf(h);
    expect(record?.status).toMatchObject({ state: 'attached', attempts: 0 });
    expect(record?.status.code).toBeUndefined();

    await h.clock.advance(10 * MINUTE);
    expect((await reconciler.run()).requeued).toEqual([]);
    await service.deleteAttachment('data-1', INSTANCE);
    await settle(h);
    expect(await attachmentOf(h)).toBeUndefined();
    expect(h.ebs.calls.DetachVolume).toBe(1);
    expect(h.ebs.volume(await ebsVolumeIdOf(h))?.attachments ?? []).toEqual([]);
  });
});
