/**
 * Declared transitions of the volume and attachment state machines (lib/domain/state-machines.ts)
 * driven through the engine: the watcher, the executor and the reconciler on the in-memory store,
 * queue and EC2 model, with EC2's faults injected. Each test says the status before and after
 * (state, and code where there is one) and what EC2 holds.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord, RecordKey, VolumeRecord } from '../../lib/domain/records.js';
import { Executor } from '../../lib/engine/executor.js';
import { ProviderError, type ProviderAttachmentState, type ProviderVolume, type VolumeProvider } from '../../lib/engine/ports.js';
import { Reconciler } from '../../lib/engine/reconciler.js';
import type { RecordChange } from '../../lib/engine/watcher.js';
import { silentLog } from '../../lib/memory/log.js';
import { INSTANCE, OTHER_INSTANCE, attachmentKey, availableVolume, executorLosingWriteAfterCreate, harness, iopsModification, newAttachment, newVolume, providerOver, volumeKey, volumeOf } from './engine-fixtures.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** The engine's default `describeGraceMs`. */
const DESCRIBE_GRACE_MS = 2 * MINUTE;
const KEY = attachmentKey('data-1');

type Harness = ReturnType<typeof harness>;

const attachmentOf = async (h: Harness) => (await h.store.get(KEY)) as AttachmentRecord | undefined;

/** Runs the whole pipeline (stream, queue, EBS) for `ms`, in steps of `stepMs`. */
async function run(h: Harness, ms: number, stepMs = 1000) {
  for (let spent = 0; spent < ms; spent += stepMs) {
    await h.watch();
    await h.settle(stepMs, stepMs);
  }
  await h.watch();
}

/** Delivers the messages due now to `executor` once, as one batch of the event source: their follow-ups wait for the next delivery. */
async function deliverOnce(h: Harness, executor: Executor = h.executor): Promise<number> {
  const received = h.queue.receive(100);
  if (received.length === 0) return 0;
  const { failedMessageIds } = await executor.run(received.map((r) => ({ messageId: r.messageId, message: r.message })));
  for (const r of received) if (!failedMessageIds.includes(r.messageId)) h.queue.delete(r.receiptHandle);
  return received.length;
}

/** Delivers every message due to `executor` until none is, without moving the clock. */
async function drainWith(h: Harness, executor: Executor) {
  for (let round = 0; round < 50 && (await deliverOnce(h, executor)) > 0; round++);
}

/** The client deletes the attachment `key`; the stream and `executor` then run for a minute. */
async function deleteAndRun(h: Harness, key: RecordKey, executor: Executor) {
  await h.store.update<AttachmentRecord>(key, { life: 'dying' });
  for (let second = 0; second < 60; second++) {
    await h.watch();
    await drainWith(h, executor);
    await h.clock.advance(1000);
  }
  await h.watch();
  await drainWith(h, executor);
}

/** Volume data-1 and its attachment to INSTANCE, created and attached through the watcher and the executor. */
async function attachedVolume(h: Harness): Promise<string> {
  await h.store.create(newVolume('data-1'));
  await h.store.create(newAttachment('data-1'));
  await run(h, 30_000);
  expect((await attachmentOf(h))?.status).toMatchObject({ state: 'attached', attempts: 0 });
  expect((await volumeOf(h)).status).toMatchObject({ state: 'in-use', attempts: 0 });
  const ebsVolumeId = (await volumeOf(h)).ebsVolumeId!;
  expect(h.ebs.volume(ebsVolumeId)?.attachments).toEqual([{ instanceId: INSTANCE, device: '/dev/sdf', state: 'attached' }]);
  return ebsVolumeId;
}

/**
 * An executor of its own on the harness's store, queue and clock, reaching the harness's EC2
 * model except for the calls `overrides` answers.
 */
/**
 * Runs the stream and `executor` for `ms` in steps of `stepMs`, returning the statuses with code
 * `code` the record `key` held after each step.
 */
async function runWith(h: Harness, executor: Executor, ms: number, key: RecordKey, code: string, stepMs = 5000) {
  const seen: (VolumeRecord | AttachmentRecord)['status'][] = [];
  for (let spent = 0; spent < ms; spent += stepMs) {
    await h.watch();
    await drainWith(h, executor);
    const status = ((await h.store.get(key)) as VolumeRecord | AttachmentRecord | undefined)?.status;
    if (status?.code === code) seen.push(status);
    await h.clock.advance(stepMs);
  }
  return seen;
}

function executorOver(h: Harness, overrides: Partial<VolumeProvider>): Executor {
  const provider = providerOver(h.ebs, overrides);
  return new Executor({ store: h.store, queue: h.queue, provider, clock: h.clock, metrics: h.metrics, log: silentLog, config: { rateWaitMaxMs: 0, concurrentEnvironments: 1 } });
}

function reconcilerOf(h: Harness): Reconciler {
  return new Reconciler({ store: h.store, queue: h.queue, provider: h.ebs, clock: h.clock, metrics: h.metrics, log: silentLog });
}

/** Volume data-1 created, then made dying: DeleteVolume sent once, the record `deleting`. Its EC2 id. */
async function deletingVolume(h: Harness): Promise<string> {
  await h.store.create(newVolume('data-1'));
  await run(h, 10_000);
  const ebsVolumeId = (await volumeOf(h)).ebsVolumeId!;
  await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'dying' });
  await h.watch();
  await h.drain();
  expect((await volumeOf(h)).status).toMatchObject({ state: 'deleting', attempts: 0, message: 'deleting' });
  expect(h.ebs.volume(ebsVolumeId)?.state).toBe('deleting');
  expect(h.ebs.calls.DeleteVolume).toBe(1);
  return ebsVolumeId;
}

const transient = () => new ProviderError('transient', 'InternalError', 'An internal error has occurred');

describe('volume transitions through the engine', () => {
  describe('deleting --failed--> error', () => {
    it('a deletion EC2 accepted and then failed (the volume in error instead of gone) ends in error at the next check; the dying record deletes it again after the longest backoff', async () => {
      const h = harness({ ebsTimings: { delete: 10 * MINUTE } });
      const ebsVolumeId = await deletingVolume(h);
      // EBS fails the deletion: the volume stays, in state error.
      h.ebs.failVolume(ebsVolumeId);
      await h.clock.advance(MINUTE);
      await deliverOnce(h);
      const status = (await volumeOf(h)).status;
      expect(status).toMatchObject({ state: 'error', code: 'VolumeError', message: expect.stringMatching(new RegExp(`^EC2 reports volume ${ebsVolumeId} in state error instead of deleted; being deleted: trying again at `)) });
      expect(h.ebs.volume(ebsVolumeId)?.state).toBe('error');
      expect(h.ebs.calls.DeleteVolume).toBe(1);
      // Not at once: after the longest backoff.
      expect(Date.parse(status.nextAttemptAt!) - h.clock.now()).toBeGreaterThan(10 * MINUTE);
      await run(h, 5 * MINUTE, 10_000);
      expect(h.ebs.calls.DeleteVolume).toBe(1);

      // Dying after an error, with a volume in EC2: deleted again, and the record goes once EC2 is done.
      await run(h, 40 * MINUTE, 10_000);
      expect(await h.store.get(volumeKey('data-1'))).toBeUndefined();
      expect(h.ebs.volumes()).toEqual([]);
      expect(h.ebs.calls.DeleteVolume).toBe(2);
    });

    it('set back to alive while EBS fails the deletion (the volume in error): VolumeError as for any live volume, with no next attempt and no word of a delete', async () => {
      const h = harness({ ebsTimings: { delete: 10 * MINUTE } });
      const ebsVolumeId = await deletingVolume(h);
      await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'alive' });
      h.ebs.failVolume(ebsVolumeId);
      await run(h, MINUTE, 10_000);
      const status = (await volumeOf(h)).status;
      expect(status).toMatchObject({ state: 'error', code: 'VolumeError', message: expect.stringMatching(new RegExp(`^EC2 reports volume ${ebsVolumeId} in state error: its storage failed`)) });
      expect(status.nextAttemptAt).toBeUndefined();
      expect(status.message).not.toMatch(/being deleted/);
      await run(h, 30 * MINUTE, 60_000);
      expect(h.ebs.calls.DeleteVolume).toBe(1);
      expect(h.ebs.volume(ebsVolumeId)?.state).toBe('error');
    });

    it('a deletion EC2 never finishes ends in error with Timeout at the age limit, and is deleted again after the longest backoff', async () => {
      const h = harness({ config: { maxOperationAgeMs: HOUR }, ebsTimings: { delete: 3 * HOUR } });
      const ebsVolumeId = await deletingVolume(h);
      let status = (await volumeOf(h)).status;
      for (let step = 0; step < 90 && status.state === 'deleting'; step++) {
        await h.clock.advance(MINUTE);
        await deliverOnce(h);
        status = (await volumeOf(h)).status;
      }
      expect(status).toMatchObject({ state: 'error', code: 'Timeout', message: expect.stringMatching(new RegExp(`^deleting ${ebsVolumeId}: not done after 6\\d minutes; being deleted: trying again at `)) });
      expect(Date.parse(status.nextAttemptAt!) - h.clock.now()).toBeGreaterThan(10 * MINUTE);
      expect(h.ebs.calls.DeleteVolume).toBe(1);
    });

    it('a deleting volume whose checks keep failing (DescribeVolumes) ends in error after the attempt budget, and is deleted again after the longest backoff', async () => {
      const h = harness({ config: { maxAttempts: 2 } });
      const ebsVolumeId = await deletingVolume(h);

      h.ebs.failNext('DescribeVolumes', transient(), 2);
      await h.clock.advance(2000);
      await deliverOnce(h);
      expect((await volumeOf(h)).status).toMatchObject({ state: 'deleting', code: 'InternalError', attempts: 1 });
      await run(h, 30_000);
      const failed = (await volumeOf(h)).status;
      expect(failed).toMatchObject({
        state: 'error',
        code: 'InternalError',
        attempts: 2,
        message: expect.stringMatching(/^An internal error has occurred \(failed 2 times so far\); being deleted: trying again at /),
        nextAttemptAt: expect.any(String),
      });
      // EBS finished the deletion meanwhile; the record could not see it.
      expect(h.ebs.volume(ebsVolumeId)).toBeUndefined();

      // Nothing is tried before the longest backoff (15 minutes) ends.
      await run(h, 10 * MINUTE, 10_000);
      expect((await volumeOf(h)).status).toEqual(failed);
      expect(h.ebs.calls.DeleteVolume).toBe(1);
      await run(h, 10 * MINUTE, 10_000);
      expect(await h.store.get(volumeKey('data-1'))).toBeUndefined();
      // The second DeleteVolume finds the volume gone: a deletion already done.
      expect(h.ebs.calls.DeleteVolume).toBe(2);
    });
  });

  it('a dying volume whose DeleteVolume keeps failing says it is tried again, with its failures so far, never that it gave up', async () => {
    const h = harness({ config: { maxAttempts: 2 } });
    await h.store.create(newVolume('data-1'));
    await run(h, 10_000);
    h.ebs.failNext('DeleteVolume', transient(), 100);
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'dying' });
    await run(h, MINUTE);
    const first = (await volumeOf(h)).status;
    expect(first).toMatchObject({ state: 'error', attempts: 2, message: `An internal error has occurred (failed 2 times so far); being deleted: trying again at ${first.nextAttemptAt}` });

    await run(h, 16 * MINUTE, 10_000);
    const again = (await volumeOf(h)).status;
    expect(again).toMatchObject({ state: 'error', attempts: 3, message: `An internal error has occurred (failed 3 times so far); being deleted: trying again at ${again.nextAttemptAt}` });
    expect(Date.parse(again.nextAttemptAt!)).toBeGreaterThan(h.clock.now());
  });

  it('modifying --observed-deleted--> error: a volume deleted outside during its modification is InvalidVolume.NotFound, and the record forgets it', async () => {
    const h = await availableVolume({});
    const volume = await volumeOf(h);
    const ebsVolumeId = volume.ebsVolumeId!;
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { spec: { ...volume.spec, sizeGiB: 20 } });
    await h.watch();
    await h.drain();
    expect((await volumeOf(h)).status).toMatchObject({ state: 'modifying', attempts: 0, message: 'modifying' });
    expect(h.ebs.calls.ModifyVolume).toBe(1);

    h.ebs.deleteBehindBack(ebsVolumeId);
    await run(h, 30_000);
    const after = await volumeOf(h);
    expect(after.status).toMatchObject({
      state: 'error',
      code: 'InvalidVolume.NotFound',
      message: `volume ${ebsVolumeId} no longer exists in EC2; a retry creates a new, empty volume`,
    });
    expect(after.ebsVolumeId).toBeUndefined();
    expect(after.observed).toBeUndefined();
    expect(h.ebs.volumes()).toEqual([]);
    expect(h.ebs.calls.CreateVolume).toBe(1);
  });

  it.each([
    ['grown', (spec: VolumeRecord['spec']) => ({ ...spec, sizeGiB: 20 })],
    ['retagged', (spec: VolumeRecord['spec']) => ({ ...spec, tags: { team: 'data' } })],
  ] as const)('available --observed-deleted--> error: a volume EC2 is deleting (deleted outside) %s is InvalidVolume.NotFound, as its check says, with no ModifyVolume or CreateTags', async (_change, changed) => {
    const h = harness({ ebsTimings: { delete: 10 * MINUTE } });
    await h.store.create(newVolume('data-1'));
    await run(h, 10_000);
    const volume = await volumeOf(h);
    const ebsVolumeId = volume.ebsVolumeId!;
    await h.ebs.deleteVolume(ebsVolumeId);
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { spec: changed(volume.spec), generation: 2 });
    await run(h, 30_000);
    expect(h.ebs.volume(ebsVolumeId)?.state).toBe('deleting');
    const after = await volumeOf(h);
    expect(after.status).toMatchObject({ state: 'error', code: 'InvalidVolume.NotFound', message: `volume ${ebsVolumeId} no longer exists in EC2; a retry creates a new, empty volume` });
    expect(after.ebsVolumeId).toBeUndefined();
    expect(h.ebs.calls.ModifyVolume + h.ebs.calls.CreateTags).toBe(0);
  });

  describe('deleting --observed-available/in-use--> available/in-use: a delete that did not take', () => {
    /** An available volume made dying whose DeleteVolume EC2 accepts and makes nothing of (an executor over such an EC2). */
    async function deleteThatDoesNotTake() {
      const h = harness();
      await h.store.create(newVolume('data-1'));
      await run(h, 10_000);
      const ebsVolumeId = (await volumeOf(h)).ebsVolumeId!;
      const accepting = executorOver(h, { deleteVolume: async () => {} });
      await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'dying' });
      await h.watch();
      await drainWith(h, accepting);
      expect((await volumeOf(h)).status).toMatchObject({ state: 'deleting', message: 'deleting' });
      return { h, ebsVolumeId, accepting };
    }

    it('dying: a DeleteVolume EC2 accepted without deleting is a failed attempt once the describe grace ends, and is made again after its backoff', async () => {
      const { h, ebsVolumeId, accepting } = await deleteThatDoesNotTake();
      expect(h.ebs.volume(ebsVolumeId)?.state).toBe('available');

      // Within the grace a describe may lag the delete: still deleting.
      await h.clock.advance(DESCRIBE_GRACE_MS / 2);
      await deliverOnce(h, accepting);
      expect((await volumeOf(h)).status).toMatchObject({ state: 'deleting', message: `deleting ${ebsVolumeId}` });

      await h.clock.advance(DESCRIBE_GRACE_MS);
      await deliverOnce(h, accepting);
      const status = (await volumeOf(h)).status;
      expect(status).toMatchObject({
        state: 'available',
        code: 'VolumeNotDeleted',
        attempts: 1,
        message: `EC2 still lists volume ${ebsVolumeId} as available after the delete`,
        nextAttemptAt: expect.any(String),
      });
      expect(Date.parse(status.nextAttemptAt!)).toBeGreaterThan(h.clock.now());

      // After its backoff, DeleteVolume again (this time EC2 deletes it), and the record goes.
      await run(h, 2 * MINUTE);
      expect(await h.store.get(volumeKey('data-1'))).toBeUndefined();
      expect(h.ebs.volumes()).toEqual([]);
    });

    it('dying: a DeleteVolume EC2 keeps accepting and never carries out adds up its attempts to the budget, then is sent once per 15 minutes, not again after every describe grace', async () => {
      const { h } = await deleteThatDoesNotTake();
      let deletes = 0;
      const counting = executorOver(h, { deleteVolume: async () => void deletes++ });
      const failures = await runWith(h, counting, HOUR, volumeKey('data-1'), 'VolumeNotDeleted');
      const attempts = [...new Set(failures.map((status) => status.attempts))];
      // Each attempt counted: 1, 2, 3, … past the budget of 8.
      expect(attempts.slice(0, 8)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      expect(attempts).toEqual(attempts.map((_, index) => index + 1));
      // Spent: the dying give-up, tried again every 15 minutes (each time after its describe grace), not every few minutes.
      expect((await volumeOf(h)).status).toMatchObject({ code: 'VolumeNotDeleted', attempts: attempts.at(-1), message: expect.stringMatching(/failed \d+ times so far.*being deleted: trying again at /) });
      deletes = 0;
      await runWith(h, counting, 2 * HOUR, volumeKey('data-1'), 'VolumeNotDeleted');
      expect(deletes).toBeGreaterThanOrEqual(5);
      expect(deletes).toBeLessThanOrEqual(8);
    });

    it('set back to alive during a delete that did not take: the record says available once the describe grace ends, not deleting until the age limit', async () => {
      const { h, ebsVolumeId } = await deleteThatDoesNotTake();
      // Its client sets it back to alive (straight in the table).
      await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'alive' });
      await run(h, DESCRIBE_GRACE_MS + MINUTE, 10_000);
      const status = (await volumeOf(h)).status;
      expect(status).toMatchObject({ state: 'available', attempts: 0 });
      expect(status.code).toBeUndefined();
      expect(h.ebs.volume(ebsVolumeId)?.state).toBe('available');
      expect(h.ebs.calls.DeleteVolume).toBe(0);
    });

    it('dying, attached outside: a record written as deleting whose volume EC2 lists in use says in-use and waits for it to be detached', async () => {
      const h = harness();
      await h.store.create(newVolume('data-1'));
      await run(h, 10_000);
      const ebsVolumeId = (await volumeOf(h)).ebsVolumeId!;
      await h.ebs.attachVolume({ ebsVolumeId, instanceId: OTHER_INSTANCE, device: '/dev/sdg' });
      await h.clock.advance(MINUTE);
      await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'dying', status: { state: 'deleting', attempts: 0, updatedAt: new Date(h.clock.now()).toISOString() } });
      await run(h, 30_000);
      const status = (await volumeOf(h)).status;
      expect(status.state).toBe('in-use');
      expect(status.message).toMatch(new RegExp(`(EC2 still lists volume ${ebsVolumeId} as in-use after the delete|attached outside the system to ${OTHER_INSTANCE})`));
      expect(h.ebs.volume(ebsVolumeId)?.state).toBe('in-use');
    });
  });

  describe('creating --removed-uncreated--> deleted', () => {
    /** Volume data-1 whose CreateVolume EC2 turned down: still creating, waiting for its next attempt, nothing in EC2. */
    async function refused(): Promise<Harness> {
      const h = harness();
      h.ebs.failNext('CreateVolume', new ProviderError('limit-exceeded', 'VolumeLimitExceeded', 'You have exceeded your maximum gp3 storage limit'));
      await h.store.create(newVolume('data-1'));
      await h.watch();
      await h.drain();
      const volume = await volumeOf(h);
      expect(volume.status).toMatchObject({ state: 'creating', code: 'VolumeLimitExceeded', attempts: 1, nextAttemptAt: expect.any(String) });
      expect(volume.createRequest).toBeUndefined();
      expect(volume.ebsVolumeId).toBeUndefined();
      expect(h.ebs.calls.CreateVolume).toBe(1);
      expect(h.ebs.volumes()).toEqual([]);
      return h;
    }

    it('made dying after EC2 refused its CreateVolume: the watcher removes the record, no EC2 call, and the retry queued before finds nothing', async () => {
      const h = await refused();
      await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'dying' });
      await h.watch();
      expect(await h.store.get(volumeKey('data-1'))).toBeUndefined();
      await run(h, MINUTE);
      expect(h.store.all()).toEqual([]);
      expect(h.ebs.calls.CreateVolume).toBe(1);
      expect(h.ebs.volumes()).toEqual([]);
    });

    it('made dying after EC2 refused its CreateVolume, met first by the queued retry: the executor removes the record, no EC2 call', async () => {
      const h = await refused();
      await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'dying' });
      // The stream has not brought the change yet.
      h.changes.splice(0);
      await h.clock.advance(5000);
      await h.drain();
      expect(await h.store.get(volumeKey('data-1'))).toBeUndefined();
      expect(h.ebs.calls.CreateVolume).toBe(1);
      expect(h.ebs.volumes()).toEqual([]);
    });
  });

  describe('in-use --failed--> error, then pending --observed-in-use--> in-use', () => {
    it('a tag change of an attached volume that EC2 keeps failing ends in error after the attempt budget; retried, the volume is found attached and the tags are set', async () => {
      const h = harness({ config: { maxAttempts: 3 } });
      const ebsVolumeId = await attachedVolume(h);
      const volume = await volumeOf(h);
      h.ebs.failNext('CreateTags', transient(), 100);
      await h.store.update<VolumeRecord>(volumeKey('data-1'), { spec: { ...volume.spec, tags: { team: 'storage' } } });
      await h.watch();
      await h.drain();
      expect((await volumeOf(h)).status).toMatchObject({ state: 'in-use', code: 'InternalError', attempts: 1 });

      await run(h, MINUTE);
      expect((await volumeOf(h)).status).toMatchObject({
        state: 'error',
        code: 'InternalError',
        attempts: 3,
        message: 'An internal error has occurred (gave up after 3 failed attempts)',
      });
      expect(h.ebs.calls.CreateTags).toBe(3);
      const held = h.ebs.volume(ebsVolumeId)!;
      expect(held.state).toBe('in-use');
      expect(held.tags.team).toBeUndefined();
      expect((await attachmentOf(h))?.status.state).toBe('attached');

      // The client retries: back to pending, the volume it holds looked at before anything is made.
      h.ebs.clearFaults();
      await h.store.update<VolumeRecord>(volumeKey('data-1'), { generation: 2 });
      await h.watch();
      expect((await volumeOf(h)).status).toMatchObject({ state: 'pending', attempts: 0, message: 'retry requested' });
      expect(h.queued()).toEqual([{ op: 'check-volume', key: 'data-1', delaySeconds: 0 }]);
      await deliverOnce(h);
      const seen = await volumeOf(h);
      expect(seen.status).toMatchObject({ state: 'in-use', attempts: 0 });
      expect(seen.status.code).toBeUndefined();
      expect(seen.ebsVolumeId).toBe(ebsVolumeId);

      await run(h, 10_000);
      expect((await volumeOf(h)).status).toMatchObject({ state: 'in-use', attempts: 0 });
      expect(h.ebs.volume(ebsVolumeId)?.tags.team).toBe('storage');
      expect(h.ebs.calls.CreateVolume).toBe(1);
      expect(h.ebs.calls.AttachVolume).toBe(1);
    });

    it('an attached volume whose storage EC2 reports failed is VolumeError at the reconciler\'s check, with no attempt at anything else', async () => {
      const h = harness();
      const ebsVolumeId = await attachedVolume(h);
      h.ebs.failVolume(ebsVolumeId);
      await h.clock.advance(10 * MINUTE);
      expect((await reconcilerOf(h).run()).requeued).toEqual([{ key: 'volume/data-1', reason: 'EC2 says error, record says in-use' }]);
      expect((await volumeOf(h)).status.state).toBe('in-use');
      await h.drain();
      expect((await volumeOf(h)).status).toMatchObject({
        state: 'error',
        code: 'VolumeError',
        message: expect.stringMatching(new RegExp(`^EC2 reports volume ${ebsVolumeId} in state error: its storage failed`)),
      });
      expect(h.ebs.volume(ebsVolumeId)).toMatchObject({ state: 'error', attachments: [{ instanceId: INSTANCE, state: 'attached' }] });
      expect((await attachmentOf(h))?.status.state).toBe('attached');
      expect(h.ebs.calls.DetachVolume + h.ebs.calls.DeleteVolume + h.ebs.calls.ModifyVolume).toBe(0);
    });

    it('a dying volume, not yet deleting, whose storage EC2 reports failed is VolumeError saying its delete follows, not that the client should delete it; then deleted', async () => {
      const h = await iopsModification({ modify: HOUR, optimize: HOUR });
      const ebsVolumeId = (await volumeOf(h)).ebsVolumeId!;
      h.ebs.failVolume(ebsVolumeId);
      await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'dying' });
      await h.watch();
      await deliverOnce(h);
      const status = (await volumeOf(h)).status;
      expect(status).toMatchObject({
        state: 'error',
        code: 'VolumeError',
        message: `EC2 reports volume ${ebsVolumeId} in state error: its storage failed and its data cannot be recovered; the record is being deleted, which deletes the EC2 volume next`,
      });
      expect(h.ebs.calls.DeleteVolume).toBe(0);

      await run(h, 5 * MINUTE, 10_000);
      expect(await h.store.get(volumeKey('data-1'))).toBeUndefined();
      expect(h.ebs.volumes()).toEqual([]);
      expect(h.ebs.calls.DeleteVolume).toBe(1);
    });

    it('a dying volume whose repeated CreateVolume (to learn the id of a volume an unanswered one made) answers a volume in error says its delete follows; then deleted', async () => {
      const h = harness();
      await h.store.create(newVolume('data-1'));
      // CreateVolume reaches EC2, and the status write after it fails: the answer is lost.
      const lossy = executorLosingWriteAfterCreate(h);
      const batch = h.batchOf(h.op('create-volume', volumeKey('data-1')));
      expect((await lossy.run(batch)).failedMessageIds).toEqual([batch[0]!.messageId]);
      expect((await volumeOf(h)).ebsVolumeId).toBeUndefined();
      await h.clock.advance(200_000);
      const [made] = h.ebs.volumes();
      h.ebs.failVolume(made!.ebsVolumeId);
      await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'dying' });
      await h.executor.run(h.batchOf(h.op('create-volume', volumeKey('data-1'))));
      const volume = await volumeOf(h);
      expect(volume.ebsVolumeId).toBe(made!.ebsVolumeId);
      expect(volume.status).toMatchObject({
        state: 'error',
        code: 'VolumeError',
        message: `EC2 reports volume ${made!.ebsVolumeId} in state error: its storage failed and its data cannot be recovered; the record is being deleted, which deletes the EC2 volume next`,
      });
      expect(h.ebs.calls.DeleteVolume ?? 0).toBe(0);

      await run(h, 5 * MINUTE, 10_000);
      expect(await h.store.get(volumeKey('data-1'))).toBeUndefined();
      expect(h.ebs.volumes()).toEqual([]);
      expect(h.ebs.calls.CreateVolume).toBe(2);
    });

    it('a dying volume, not yet deleting, whose EC2 volume was deleted outside says nothing is left to delete, not that a retry creates a new one; then removed', async () => {
      const h = await iopsModification({ modify: HOUR, optimize: HOUR });
      const ebsVolumeId = (await volumeOf(h)).ebsVolumeId!;
      h.ebs.deleteBehindBack(ebsVolumeId);
      await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'dying' });
      await h.watch();
      await deliverOnce(h);
      const volume = await volumeOf(h);
      expect(volume.ebsVolumeId).toBeUndefined();
      expect(volume.status).toMatchObject({ state: 'error', code: 'InvalidVolume.NotFound', message: `volume ${ebsVolumeId} no longer exists in EC2; nothing is left to delete` });

      await run(h, MINUTE, 10_000);
      expect(await h.store.get(volumeKey('data-1'))).toBeUndefined();
      expect(h.ebs.calls.DeleteVolume ?? 0).toBe(0);
    });

    it('a dying volume in VolumeError saying its delete follows, set back to alive before the delete, says what its client can do, and is not deleted', async () => {
      // Dying while EC2 creates it, and EC2 fails it: the check says its delete follows.
      const h = harness({ ebsTimings: { create: 10 * MINUTE } });
      await h.store.create(newVolume('data-1'));
      await h.executor.run(h.batchOf(h.op('create-volume', volumeKey('data-1'))));
      const { ebsVolumeId } = await volumeOf(h);
      h.ebs.failVolume(ebsVolumeId!);
      await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'dying' });
      await h.executor.run(h.batchOf(h.op('check-volume', volumeKey('data-1'))));
      const lost = `EC2 reports volume ${ebsVolumeId} in state error: its storage failed and its data cannot be recovered`;
      expect((await volumeOf(h)).status).toMatchObject({ state: 'error', code: 'VolumeError', message: `${lost}; the record is being deleted, which deletes the EC2 volume next` });

      await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'alive' });
      await h.watch();
      const expected = { state: 'error', code: 'VolumeError', message: `${lost}. Delete this volume record (that deletes the EC2 volume) and create it again; a retry only looks at it again` };
      expect((await volumeOf(h)).status).toMatchObject(expected);
      await run(h, 30 * MINUTE, 60_000);
      expect((await volumeOf(h)).status).toMatchObject(expected);
      expect(h.ebs.calls.DeleteVolume ?? 0).toBe(0);
    });

    it('a volume whose storage EC2 reports failed when its spec grows is VolumeError at once, with no ModifyVolume EC2 could only refuse', async () => {
      const h = await availableVolume({});
      const volume = await volumeOf(h);
      h.ebs.failVolume(volume.ebsVolumeId!);
      await h.store.update<VolumeRecord>(volumeKey('data-1'), { spec: { ...volume.spec, sizeGiB: 20 }, generation: 2 });
      await run(h, 30 * MINUTE, 5000);
      expect((await volumeOf(h)).status).toMatchObject({
        state: 'error',
        code: 'VolumeError',
        message: expect.stringMatching(new RegExp(`^EC2 reports volume ${volume.ebsVolumeId} in state error: its storage failed`)),
      });
      expect(h.ebs.calls.ModifyVolume).toBe(0);
    });

    it('a dying volume EC2 shows attached to an instance no record knows backs off its looks and, spent, tries again every 15 minutes; deleted once detached', async () => {
      const h = await availableVolume({});
      const volume = await volumeOf(h);
      await h.ebs.attachVolume({ ebsVolumeId: volume.ebsVolumeId!, instanceId: INSTANCE, device: '/dev/sdz' });
      await h.store.update<VolumeRecord>(volumeKey('data-1'), { status: { ...volume.status, state: 'in-use' } });
      await run(h, 10_000);
      await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'dying' });
      const describes = h.ebs.calls.DescribeVolumes;
      await run(h, 60 * MINUTE, 10_000);
      // Not a look every few seconds for as long as it stays attached.
      expect(h.ebs.calls.DescribeVolumes - describes).toBeLessThan(20);
      expect((await volumeOf(h)).status).toMatchObject({ state: 'error', code: 'VolumeInUse', nextAttemptAt: expect.any(String) });

      await h.ebs.detachVolume({ ebsVolumeId: volume.ebsVolumeId!, instanceId: INSTANCE });
      await run(h, 20 * MINUTE, 10_000);
      expect(await h.store.get(volumeKey('data-1'))).toBeUndefined();
      expect(h.ebs.volume(volume.ebsVolumeId!)).toBeUndefined();
    });

    it('a dying volume EC2 lists in use names only the instances that hold it: not one EC2 lists detached, and one detaching as detaching', async () => {
      const h = await availableVolume({});
      const volume = await volumeOf(h);
      await h.ebs.attachVolume({ ebsVolumeId: volume.ebsVolumeId!, instanceId: INSTANCE, device: '/dev/sdz' });
      await h.store.update<VolumeRecord>(volumeKey('data-1'), { status: { ...volume.status, state: 'in-use' } });
      await run(h, 10_000);
      // EC2 lists, beside INSTANCE's attachment (in the state `outside` gives), an earlier one of OTHER_INSTANCE, detached.
      let outside: ProviderAttachmentState = 'attached';
      const seeing = executorOver(h, {
        describeVolumes: async (ids) =>
          (await h.ebs.describeVolumes(ids)).map(
            (v): ProviderVolume => ({ ...v, attachments: [...v.attachments.map((a) => ({ ...a, state: outside })), { instanceId: OTHER_INSTANCE, device: '/dev/sdy', state: 'detached' }] }),
          ),
      });
      await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'dying' });
      await h.watch();
      // Attached outside; then detached outside, EC2 still detaching it (the status says so, not that
      // it is attached there); then a describe that lags the detach: in use, every attachment detached.
      const phases: [ProviderAttachmentState, RegExp][] = [
        ['attached', new RegExp(`^waiting: attached outside the system to ${INSTANCE}, no record names the attachment`)],
        ['detaching', new RegExp(`^waiting: detaching outside the system from ${INSTANCE}, no record names the attachment`)],
        ['detached', /^waiting: EC2 lists the volume in use with no instance holding it/],
      ];
      for (const [attempt, [state, message]] of phases.entries()) {
        outside = state;
        if (attempt > 0) await h.clock.advance(Date.parse((await volumeOf(h)).status.nextAttemptAt!) - h.clock.now());
        await drainWith(h, seeing);
        const status = (await volumeOf(h)).status;
        expect(status, state).toMatchObject({ state: 'in-use', code: 'VolumeInUse', attempts: attempt + 1 });
        expect(status.message, state).toMatch(message);
        expect(status.message, state).not.toContain(OTHER_INSTANCE);
        if (state === 'detached') expect(status.message).not.toContain(INSTANCE);
      }
    });

    it('a dying volume its record says available while the console attached it to an instance no record knows: one refused DeleteVolume makes it in-use, naming the instance; then looks, not deletes; deleted once detached', async () => {
      const h = await availableVolume({});
      const volume = await volumeOf(h);
      await h.ebs.attachVolume({ ebsVolumeId: volume.ebsVolumeId!, instanceId: INSTANCE, device: '/dev/sdz' });
      await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'dying' });
      await run(h, 10_000);
      const outside = `attached outside the system to ${INSTANCE}`;
      expect((await volumeOf(h)).status).toMatchObject({ state: 'in-use', code: 'VolumeInUse', message: expect.stringContaining(outside) });
      expect(h.ebs.calls.DeleteVolume).toBe(1);
      await run(h, 60 * MINUTE, 10_000);
      expect((await volumeOf(h)).status).toMatchObject({ state: 'error', code: 'VolumeInUse', message: expect.stringContaining(outside) });
      // Once given up, the delete is tried every 15 minutes, not at each backoff.
      expect(h.ebs.calls.DeleteVolume).toBeLessThanOrEqual(5);

      await h.ebs.detachVolume({ ebsVolumeId: volume.ebsVolumeId!, instanceId: INSTANCE });
      await run(h, 20 * MINUTE, 10_000);
      expect(await h.store.get(volumeKey('data-1'))).toBeUndefined();
      expect(h.ebs.volume(volume.ebsVolumeId!)).toBeUndefined();
    });
  });
});

describe('attachment transitions through the engine', () => {
  it('attached --observed-detached--> removed on a volume whose storage EC2 reports failed: the volume record is left to its own check (VolumeError), not written available', async () => {
    const h = harness();
    const ebsVolumeId = await attachedVolume(h);
    h.ebs.failVolume(ebsVolumeId);
    await h.store.update<AttachmentRecord>(KEY, { life: 'dying' });
    // Every state written to the volume record from here on.
    const volumeStates: string[] = [];
    const update = h.store.update.bind(h.store);
    h.store.update = (async (key, changes, condition) => {
      const state = (changes as Partial<VolumeRecord>).status?.state;
      if (key.kind === 'volume' && state !== undefined) volumeStates.push(state);
      return update(key, changes, condition);
    }) as typeof h.store.update;
    await run(h, 30_000);
    expect(volumeStates).toEqual(['error']);
    expect(await attachmentOf(h)).toBeUndefined();
    expect(h.ebs.volume(ebsVolumeId)).toMatchObject({ state: 'error', attachments: [] });
    expect((await volumeOf(h)).status).toMatchObject({
      state: 'error',
      code: 'VolumeError',
      message: expect.stringMatching(new RegExp(`^EC2 reports volume ${ebsVolumeId} in state error: its storage failed`)),
    });
  });

  it('attaching --detach-started--> detaching: a dying attachment still attaching whose volume record was removed detaches the volume its tags name', async () => {
    const h = await availableVolume({});
    const ebsVolumeId = (await volumeOf(h)).ebsVolumeId!;
    await h.store.create(newAttachment('data-1'));
    await h.watch();
    await h.drain();
    expect((await attachmentOf(h))?.status).toMatchObject({ state: 'attaching', attempts: 0, message: 'attaching as /dev/sdf' });
    expect(h.ebs.volume(ebsVolumeId)?.attachments).toEqual([{ instanceId: INSTANCE, device: '/dev/sdf', state: 'attaching' }]);

    // The client deletes the attachment and removes the volume record straight from the table, before the stream brings either.
    await h.store.update<AttachmentRecord>(KEY, { life: 'dying' });
    await h.store.remove(volumeKey('data-1'));
    await h.watch();
    expect((await attachmentOf(h))?.status.state).toBe('attaching');
    await h.drain();
    const detaching = await attachmentOf(h);
    expect(detaching).toMatchObject({ life: 'dying', device: '/dev/sdf', status: { state: 'detaching', attempts: 0, message: 'detaching' } });
    expect(detaching?.status.code).toBeUndefined();
    expect(h.ebs.calls.DetachVolume).toBe(1);
    expect(h.ebs.volume(ebsVolumeId)?.attachments).toEqual([{ instanceId: INSTANCE, device: '/dev/sdf', state: 'detaching' }]);

    await run(h, 30_000);
    expect(await attachmentOf(h)).toBeUndefined();
    expect(h.ebs.volume(ebsVolumeId)).toMatchObject({ state: 'available', attachments: [] });
    expect(h.ebs.calls.DetachVolume).toBe(1);
  });

  it('attaching --observed-detached--> pending: an attach EC2 accepted that is not there after the describe grace is AttachmentNotFound, its device forgotten, and attached afresh', async () => {
    const h = await availableVolume({});
    const ebsVolumeId = (await volumeOf(h)).ebsVolumeId!;
    // EC2 accepts the AttachVolume, and makes nothing of it.
    const accepting = executorOver(h, { attachVolume: async () => {} });
    await h.store.create(newAttachment('data-1'));
    await h.watch();
    await drainWith(h, accepting);
    expect(await attachmentOf(h)).toMatchObject({ device: '/dev/sdf', status: { state: 'attaching', attempts: 0, message: 'attaching as /dev/sdf' } });
    expect(h.ebs.volume(ebsVolumeId)?.attachments).toEqual([]);

    await h.clock.advance(DESCRIBE_GRACE_MS + 10_000);
    await deliverOnce(h);
    const missing = await attachmentOf(h);
    expect(missing?.status).toMatchObject({ state: 'pending', code: 'AttachmentNotFound', attempts: 1, message: 'the attach did not take', nextAttemptAt: expect.any(String) });
    expect(missing?.device).toBeUndefined();
    expect(h.ebs.volume(ebsVolumeId)?.attachments).toEqual([]);

    await run(h, 30_000);
    expect(await attachmentOf(h)).toMatchObject({ device: '/dev/sdf', status: { state: 'attached', attempts: 0 } });
    expect(h.ebs.volume(ebsVolumeId)?.attachments).toEqual([{ instanceId: INSTANCE, device: '/dev/sdf', state: 'attached' }]);
    expect(h.ebs.calls.AttachVolume).toBe(1);
  });

  it('attaching: a describe that shows the instance\'s attachment detaching gets the describe grace; past it, the status says EC2 is detaching it, not that the attach did not take', async () => {
    const h = await availableVolume({});
    const ebsVolumeId = (await volumeOf(h)).ebsVolumeId!;
    // EC2 accepts the AttachVolume and, as DescribeVolumes shows it, is detaching the volume from the instance.
    const detachingHere = executorOver(h, {
      attachVolume: async () => {},
      describeVolumes: async (ids) =>
        (await h.ebs.describeVolumes(ids)).map((v): ProviderVolume => ({ ...v, state: 'in-use', attachments: [{ instanceId: INSTANCE, device: '/dev/sdf', state: 'detaching' }] })),
    });
    await h.store.create(newAttachment('data-1'));
    await h.watch();
    await drainWith(h, detachingHere);
    await h.clock.advance(3000);
    await drainWith(h, detachingHere);
    const checked = await attachmentOf(h);
    expect(checked).toMatchObject({ device: '/dev/sdf', status: { state: 'attaching', attempts: 0 } });
    expect(checked?.status.code).toBeUndefined();

    await h.clock.advance(DESCRIBE_GRACE_MS);
    await drainWith(h, detachingHere);
    expect((await attachmentOf(h))?.status).toMatchObject({
      state: 'pending',
      code: 'AttachmentDetaching',
      attempts: 1,
      message: `EC2 shows ${ebsVolumeId} detaching from ${INSTANCE} (detached outside the provisioner)`,
    });
  });

  it('pending with its device kept: EC2 showing the instance\'s attachment detaching is looked at again, not taken for nothing attached; attached afresh once it is detached', async () => {
    const h = harness();
    const ebsVolumeId = await attachedVolume(h);
    // Back to pending with its device (an attach whose answer was lost) while EC2, as DescribeVolumes shows it, detaches the volume from the instance.
    await h.store.update<AttachmentRecord>(KEY, { status: { state: 'pending', code: 'RequestTimeout', message: 'AttachVolume timed out', attempts: 1, updatedAt: new Date(h.clock.now()).toISOString() } });
    let detaching = true;
    const seeing = executorOver(h, {
      describeVolumes: async (ids) =>
        (await h.ebs.describeVolumes(ids)).map((v): ProviderVolume => (detaching ? { ...v, attachments: v.attachments.map((a) => ({ ...a, state: 'detaching' })) } : v)),
    });
    await seeing.run(h.batchOf(h.op('attach', KEY)));
    const looked = await attachmentOf(h);
    expect(looked).toMatchObject({ device: '/dev/sdf', status: { state: 'pending', attempts: 1, message: `EC2 is detaching it from ${INSTANCE}; attaching afresh once it is detached` } });
    expect(h.ebs.calls.AttachVolume).toBe(1);

    // Detached: attached afresh (once the reconciler brings the volume record, still in use, in line).
    await h.ebs.detachVolume({ ebsVolumeId, instanceId: INSTANCE });
    detaching = false;
    await h.clock.advance(MINUTE);
    await drainWith(h, seeing);
    await h.clock.advance(10 * MINUTE);
    await reconcilerOf(h).run();
    await run(h, 30_000);
    expect(await attachmentOf(h)).toMatchObject({ device: '/dev/sdf', status: { state: 'attached', attempts: 0 } });
    expect(h.ebs.volume(ebsVolumeId)?.attachments).toEqual([{ instanceId: INSTANCE, device: '/dev/sdf', state: 'attached' }]);
    expect(h.ebs.calls.AttachVolume).toBe(2);
  });

  // EC2's DescribeVolumes may lag an AttachVolume it accepted (eventual consistency): within the
  // describe grace, a check that finds no attachment yet keeps it `attaching` with its device, so
  // a delete then detaches rather than dropping a record EC2 may hold attached.
  it('attaching: a describe that lags the AttachVolume, within the describe grace, keeps it attaching with its device; deleted then, it is detached', async () => {
    const h = await availableVolume({});
    const ebsVolumeId = (await volumeOf(h)).ebsVolumeId!;
    const LAG_MS = 10_000;
    const attachedAt = new Map<string, number>();
    // EC2's DescribeVolumes shows an attachment only LAG_MS after its AttachVolume.
    const lagging = executorOver(h, {
      attachVolume: async (request) => {
        await h.ebs.attachVolume(request);
        attachedAt.set(`${request.ebsVolumeId} ${request.instanceId}`, h.clock.now());
      },
      describeVolumes: async (ids) =>
        (await h.ebs.describeVolumes(ids)).map((volume): ProviderVolume => {
          const shown = volume.attachments.filter((a) => h.clock.now() - (attachedAt.get(`${volume.ebsVolumeId} ${a.instanceId}`) ?? -Infinity) >= LAG_MS);
          return { ...volume, attachments: shown, state: shown.length > 0 ? 'in-use' : 'available' };
        }),
    });
    await h.store.create(newAttachment('data-1'));
    await h.watch();
    await drainWith(h, lagging);
    expect(await attachmentOf(h)).toMatchObject({ device: '/dev/sdf', status: { state: 'attaching' } });

    // The first check, a few seconds after the attach: EC2 does not list the attachment yet.
    await h.clock.advance(3000);
    await drainWith(h, lagging);
    const checked = await attachmentOf(h);

    // The client deletes the attachment now.
    await deleteAndRun(h, KEY, lagging);
    expect(await attachmentOf(h)).toBeUndefined();
    expect(h.ebs.volume(ebsVolumeId)?.attachments).toEqual([]);
    expect(checked).toMatchObject({ device: '/dev/sdf', status: { state: 'attaching' } });
  });

  it('attaching: a describe that lags the AttachVolume and still lists the instance\'s earlier attachment as detached gets the same describe grace, with no attempt spent', async () => {
    const h = await availableVolume({});
    const ebsVolumeId = (await volumeOf(h)).ebsVolumeId!;
    const LAG_MS = 10_000;
    let attachedAt = Number.POSITIVE_INFINITY;
    // Until LAG_MS after the AttachVolume, EC2's DescribeVolumes shows the instance's previous attachment, detached.
    const lagging = executorOver(h, {
      attachVolume: async (request) => {
        await h.ebs.attachVolume(request);
        attachedAt = h.clock.now();
      },
      describeVolumes: async (ids) =>
        (await h.ebs.describeVolumes(ids)).map((volume): ProviderVolume =>
          h.clock.now() - attachedAt >= LAG_MS ? volume : { ...volume, state: 'available', attachments: [{ instanceId: INSTANCE, device: '/dev/sdf', state: 'detached' }] },
        ),
    });
    await h.store.create(newAttachment('data-1'));
    await h.watch();
    await drainWith(h, lagging);
    expect(await attachmentOf(h)).toMatchObject({ device: '/dev/sdf', status: { state: 'attaching' } });

    // The first check, a few seconds after the attach: EC2 still lists the earlier attachment, detached.
    await h.clock.advance(3000);
    await drainWith(h, lagging);
    const checked = await attachmentOf(h);
    expect(checked).toMatchObject({ device: '/dev/sdf', status: { state: 'attaching', attempts: 0 } });
    expect(checked?.status.code).toBeUndefined();

    await h.clock.advance(LAG_MS);
    await drainWith(h, lagging);
    expect(await attachmentOf(h)).toMatchObject({ device: '/dev/sdf', status: { state: 'attached', attempts: 0 } });
    expect(h.ebs.volume(ebsVolumeId)?.attachments).toEqual([{ instanceId: INSTANCE, device: '/dev/sdf', state: 'attached' }]);
    expect(h.ebs.calls.AttachVolume).toBe(1);
  });

  it('attaching: a Multi-Attach volume attached to another instance gets the same describe grace; deleted then, the new attachment is detached', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1', {}, { volumeType: 'io2', iops: 1000, multiAttach: true }));
    await h.store.create(newAttachment('data-1'));
    await run(h, 30_000);
    expect((await attachmentOf(h))?.status.state).toBe('attached');
    const ebsVolumeId = (await volumeOf(h)).ebsVolumeId!;
    const SECOND = attachmentKey('data-1', OTHER_INSTANCE);
    const LAG_MS = 10_000;
    let attachedAt = Number.POSITIVE_INFINITY;
    // EC2's DescribeVolumes lists the second instance's attachment only LAG_MS after its AttachVolume.
    const lagging = executorOver(h, {
      attachVolume: async (request) => {
        await h.ebs.attachVolume(request);
        if (request.instanceId === OTHER_INSTANCE) attachedAt = h.clock.now();
      },
      describeVolumes: async (ids) =>
        (await h.ebs.describeVolumes(ids)).map((volume): ProviderVolume => ({
          ...volume,
          attachments: volume.attachments.filter((a) => a.instanceId !== OTHER_INSTANCE || h.clock.now() - attachedAt >= LAG_MS),
        })),
    });
    await h.store.create(newAttachment('data-1', { instanceId: OTHER_INSTANCE }));
    await h.watch();
    await drainWith(h, lagging);
    await h.clock.advance(3000);
    await drainWith(h, lagging);
    const checked = await h.store.get(SECOND);
    expect(checked).toMatchObject({ device: '/dev/sdf', status: { state: 'attaching' } });
    expect(checked?.status.code).toBeUndefined();

    await deleteAndRun(h, SECOND, lagging);
    expect(await h.store.get(SECOND)).toBeUndefined();
    expect(h.ebs.volume(ebsVolumeId)?.attachments.map((a) => a.instanceId)).toEqual([INSTANCE]);
  });

  it('attached --failed--> error: a dying attachment whose DetachVolume EC2 keeps refusing ends in error after the attempt budget, keeps its device, and detaches after the longest backoff', async () => {
    const h = harness({ config: { maxAttempts: 3 } });
    const ebsVolumeId = await attachedVolume(h);
    h.ebs.failNext('DetachVolume', new ProviderError('incorrect-state', 'IncorrectState', `Volume '${ebsVolumeId}' is in the 'busy' state.`), 100);
    await h.store.update<AttachmentRecord>(KEY, { life: 'dying' });
    await h.watch();
    await h.drain();
    expect((await attachmentOf(h))?.status).toMatchObject({ state: 'attached', code: 'IncorrectState', attempts: 1 });

    await run(h, MINUTE);
    const failed = await attachmentOf(h);
    expect(failed).toMatchObject({
      life: 'dying',
      device: '/dev/sdf',
      status: {
        state: 'error',
        code: 'IncorrectState',
        attempts: 3,
        message: expect.stringMatching(/\(failed 3 times so far\); being deleted: trying again at /),
        nextAttemptAt: expect.any(String),
      },
    });
    expect(h.ebs.calls.DetachVolume).toBe(3);
    expect(h.ebs.volume(ebsVolumeId)?.attachments).toEqual([{ instanceId: INSTANCE, device: '/dev/sdf', state: 'attached' }]);

    // EC2 lets it go; nothing is tried before the longest backoff ends.
    h.ebs.clearFaults();
    await run(h, 10 * MINUTE, 10_000);
    expect((await attachmentOf(h))?.status.state).toBe('error');
    expect(h.ebs.calls.DetachVolume).toBe(3);
    await run(h, 10 * MINUTE, 10_000);
    expect(await attachmentOf(h)).toBeUndefined();
    expect(h.ebs.volume(ebsVolumeId)?.attachments).toEqual([]);
    expect(h.ebs.calls.DetachVolume).toBe(4);
  });
  // A check of an attachment at rest is a look, not an attempt: a failed DescribeVolumes leaves its
  // status alone, and a status that still names a failed look (written by an earlier version) is
  // cleared by the next check that finds it attached, so the reconciler has nothing to resend.
  it('attached: a check whose DescribeVolumes failed, followed by one that finds it attached, leaves no failure in the status and nothing for the reconciler to resend', async () => {
    const h = harness();
    const ebsVolumeId = await attachedVolume(h);
    // A check of the attachment (as the reconciler sends one), whose DescribeVolumes fails.
    h.ebs.failNext('DescribeVolumes', transient());
    const before = await attachmentOf(h);
    await h.executor.run(h.batchOf(h.op('check-attachment', KEY)));
    expect(await attachmentOf(h)).toEqual(before);
    expect(h.queued()).toEqual([]);
    // A status an earlier version wrote after such a look.
    await h.store.update<AttachmentRecord>(KEY, { status: { ...before!.status, code: 'InternalError', message: 'describe failed', attempts: 1, nextAttemptAt: new Date(h.clock.now() + 5000).toISOString() } });

    const reconciler = reconcilerOf(h);
    await h.clock.advance(10 * MINUTE);
    await reconciler.run();
    await h.drain();
    expect(h.ebs.volume(ebsVolumeId)?.attachments).toEqual([{ instanceId: INSTANCE, device: '/dev/sdf', state: 'attached' }]);
    await h.clock.advance(10 * MINUTE);
    expect((await reconciler.run()).requeued).toEqual([]);
    const status = (await attachmentOf(h))?.status;
    expect(status).toMatchObject({ state: 'attached', attempts: 0 });
    expect(status?.code).toBeUndefined();
  });

  describe('detaching --observed-attached--> attached: a detach that did not take', () => {
    /** The attachment of `h`'s attached volume made dying, its DetachVolume accepted by EC2 and made nothing of (an executor over such an EC2). */
    async function detachThatDoesNotTake(h: ReturnType<typeof harness>) {
      const ebsVolumeId = await attachedVolume(h);
      const accepting = executorOver(h, { detachVolume: async () => {} });
      await h.store.update<AttachmentRecord>(KEY, { life: 'dying' });
      await h.watch();
      await drainWith(h, accepting);
      expect((await attachmentOf(h))?.status).toMatchObject({ state: 'detaching', message: 'detaching' });
      return { ebsVolumeId, accepting };
    }

    it('dying: a DetachVolume EC2 accepted without detaching is a failed attempt once the describe grace ends, and is made again after its backoff', async () => {
      const h = harness();
      // EC2 accepts the DetachVolume, and makes nothing of it.
      const { ebsVolumeId, accepting } = await detachThatDoesNotTake(h);

      // Within the grace a describe may lag the detach: still detaching.
      await h.clock.advance(DESCRIBE_GRACE_MS / 2);
      await deliverOnce(h, accepting);
      expect((await attachmentOf(h))?.status.state).toBe('detaching');

      await h.clock.advance(DESCRIBE_GRACE_MS);
      await deliverOnce(h, accepting);
      const failed = await attachmentOf(h);
      expect(failed).toMatchObject({
        device: '/dev/sdf',
        status: { state: 'attached', code: 'AttachmentNotDetached', attempts: 1, message: `EC2 still lists ${ebsVolumeId} attached to ${INSTANCE} after the detach`, nextAttemptAt: expect.any(String) },
      });

      // After its backoff, DetachVolume again (this time EC2 detaches it), and the record goes.
      await run(h, 2 * MINUTE);
      expect(await attachmentOf(h)).toBeUndefined();
      expect(h.ebs.volume(ebsVolumeId)?.attachments).toEqual([]);
      expect(h.ebs.calls.DetachVolume).toBe(1);
    });

    it('dying: a DetachVolume EC2 keeps accepting and never carries out adds up its attempts to the budget, then is sent once per 15 minutes, not again after every describe grace', async () => {
      const h = harness();
      let detaches = 0;
      await detachThatDoesNotTake(h);
      const counting = executorOver(h, { detachVolume: async () => void detaches++ });
      const failures = await runWith(h, counting, HOUR, KEY, 'AttachmentNotDetached');
      const attempts = [...new Set(failures.map((status) => status.attempts))];
      // Each attempt counted: 1, 2, 3, … past the budget of 8.
      expect(attempts.slice(0, 8)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      expect(attempts).toEqual(attempts.map((_, index) => index + 1));
      expect((await attachmentOf(h))?.status).toMatchObject({ code: 'AttachmentNotDetached', attempts: attempts.at(-1), message: expect.stringMatching(/failed \d+ times so far.*being deleted: trying again at /) });
      detaches = 0;
      await runWith(h, counting, 2 * HOUR, KEY, 'AttachmentNotDetached');
      expect(detaches).toBeGreaterThanOrEqual(5);
      expect(detaches).toBeLessThanOrEqual(8);
    });

    it('dying: an attachment EC2 lists attaching again past the describe grace of its detach (attached again outside) is a failed attempt, not detaching until the age limit; detached again after its backoff', async () => {
      let attachMs = 2000;
      const h = harness({ ebsTimings: { attach: () => attachMs } });
      // EC2 accepts the DetachVolume, and makes nothing of it; outside, the volume is detached and attached again.
      const { ebsVolumeId, accepting } = await detachThatDoesNotTake(h);
      await h.ebs.detachVolume({ ebsVolumeId, instanceId: INSTANCE });
      await h.clock.advance(10_000);
      attachMs = 10 * MINUTE;
      await h.ebs.attachVolume({ ebsVolumeId, instanceId: INSTANCE, device: '/dev/sdg' });

      await h.clock.advance(DESCRIBE_GRACE_MS);
      await deliverOnce(h, accepting);
      expect(h.ebs.volume(ebsVolumeId)?.attachments).toEqual([{ instanceId: INSTANCE, device: '/dev/sdg', state: 'attaching' }]);
      expect(await attachmentOf(h)).toMatchObject({
        device: '/dev/sdg',
        status: {
          state: 'attached',
          code: 'AttachmentNotDetached',
          attempts: 1,
          message: `EC2 lists ${ebsVolumeId} attaching to ${INSTANCE} again after the detach (attached again outside the provisioner)`,
          nextAttemptAt: expect.any(String),
        },
      });

      // After its backoff, DetachVolume again (this time EC2 detaches it), and the record goes.
      await run(h, 2 * MINUTE);
      expect(await attachmentOf(h)).toBeUndefined();
      expect(h.ebs.volume(ebsVolumeId)?.attachments).toEqual([]);
    });

    it('set back to alive while EC2 lists it attaching again past the describe grace of its detach (attached again outside): attached with the device EC2 names, not detaching until the age limit', async () => {
      let attachMs = 2000;
      const h = harness({ ebsTimings: { attach: () => attachMs } });
      const { ebsVolumeId, accepting } = await detachThatDoesNotTake(h);
      await h.store.update<AttachmentRecord>(KEY, { life: 'alive' });
      await h.ebs.detachVolume({ ebsVolumeId, instanceId: INSTANCE });
      await h.clock.advance(10_000);
      attachMs = 10 * MINUTE;
      await h.ebs.attachVolume({ ebsVolumeId, instanceId: INSTANCE, device: '/dev/sdg' });

      await h.clock.advance(DESCRIBE_GRACE_MS);
      await deliverOnce(h, accepting);
      expect(h.ebs.volume(ebsVolumeId)?.attachments).toEqual([{ instanceId: INSTANCE, device: '/dev/sdg', state: 'attaching' }]);
      const attachment = await attachmentOf(h);
      expect(attachment).toMatchObject({ life: 'alive', device: '/dev/sdg', status: { state: 'attached', attempts: 0 } });
      expect(attachment?.status.code).toBeUndefined();
    });

    it('set back to alive during a detach that did not take: the record says attached once the describe grace ends, not detaching until the age limit', async () => {
      const h = harness();
      const { ebsVolumeId } = await detachThatDoesNotTake(h);
      await h.store.update<AttachmentRecord>(KEY, { life: 'alive' });
      await run(h, DESCRIBE_GRACE_MS + MINUTE, 10_000);
      const attachment = await attachmentOf(h);
      expect(attachment).toMatchObject({ life: 'alive', device: '/dev/sdf', status: { state: 'attached', attempts: 0 } });
      expect(attachment?.status.code).toBeUndefined();
      expect(h.ebs.volume(ebsVolumeId)?.attachments).toEqual([{ instanceId: INSTANCE, device: '/dev/sdf', state: 'attached' }]);
      expect(h.ebs.calls.DetachVolume + h.ebs.calls.AttachVolume).toBe(1);
    });
  });
});

describe('watcher: late images of an attachment', () => {
  it('a stale alive image delivered after the dying one (late or out of order) changes nothing: no write, no attach, one detach', async () => {
    const h = harness();
    const ebsVolumeId = await attachedVolume(h);
    const alive = (await attachmentOf(h))!;
    await h.store.update<AttachmentRecord>(KEY, { life: 'dying' });
    const dying = (await attachmentOf(h))!;
    await h.watch();
    expect(h.queued()).toEqual([{ op: 'detach', key: `data-1/${INSTANCE}`, delaySeconds: 0 }]);

    // The stream delivers, late, a change that left it alive (an older image), and a copy of the
    // dying change with its images the wrong way round.
    const stale = (id: string): RecordChange[] => [
      { id: `${id}-1`, eventName: 'MODIFY', key: KEY, oldRecord: { ...alive, status: { ...alive.status, state: 'attaching' } }, newRecord: alive },
      { id: `${id}-2`, eventName: 'MODIFY', key: KEY, oldRecord: dying, newRecord: alive },
    ];
    // Before the detach is made...
    expect((await h.watcher.handle(stale('before'))).failedChangeIds).toEqual([]);
    expect(await attachmentOf(h)).toEqual(dying);
    expect(h.queued().map((q) => q.op)).not.toContain('attach');
    await h.drain();
    const detaching = (await attachmentOf(h))!;
    expect(detaching).toMatchObject({ life: 'dying', status: { state: 'detaching', attempts: 0 } });
    expect(h.ebs.calls.DetachVolume).toBe(1);

    // ...and while it is under way.
    expect((await h.watcher.handle(stale('during'))).failedChangeIds).toEqual([]);
    expect(await attachmentOf(h)).toEqual(detaching);
    expect(h.queued().map((q) => q.op)).not.toContain('attach');

    await run(h, 30_000);
    expect(await attachmentOf(h)).toBeUndefined();
    expect(h.ebs.volume(ebsVolumeId)?.attachments).toEqual([]);
    expect(h.ebs.calls.AttachVolume).toBe(1);
    expect(h.ebs.calls.DetachVolume).toBe(1);

    // Once the record is gone, late images of it alive (its insert among them) recreate nothing.
    expect((await h.watcher.handle([{ id: 'after-0', eventName: 'INSERT', key: KEY, newRecord: alive }, ...stale('after')])).failedChangeIds).toEqual([]);
    await run(h, 30_000);
    expect(await attachmentOf(h)).toBeUndefined();
    expect(h.ebs.calls.AttachVolume).toBe(1);
    expect(h.ebs.volume(ebsVolumeId)?.attachments).toEqual([]);
  });
});
