/**
 * Spec changes a client writes (through the API or straight into the table): EBS cannot make
 * every change, and one it cannot make must cause no ModifyVolume by any path (watcher, executor,
 * reconciler, duplicate or late messages) while the record says why; a delete or a retry is
 * never held back by it.
 */
import { describe, expect, it } from 'vitest';
import { provisionedPerformance } from '../../lib/domain/ebs-limits.js';
import type { AttachmentRecord, VolumeRecord, VolumeSpec } from '../../lib/domain/records.js';
import { VolumeService } from '../../lib/api/service.js';
import { Reconciler } from '../../lib/engine/reconciler.js';
import { Executor } from '../../lib/engine/executor.js';
import { ConditionFailedError, ProviderError, type OperationMessage, type VolumeProvider } from '../../lib/engine/ports.js';
import type { RecordChange } from '../../lib/engine/watcher.js';
import { silentLog } from '../../lib/memory/log.js';
import { MemoryRateBudget } from '../../lib/memory/rate-budget.js';
import { INSTANCE, attachmentKey, availableVolume, data1Created, executorLosingWriteAfterCreate, harness, iopsModification, newAttachment, newVolume, providerOver, volumeKey, volumeOf } from './engine-fixtures.js';

const KEY = volumeKey('data-1');
const MINUTE = 60_000;
const HOUR_MS = 60 * MINUTE;
/** EC2's window of 4 modifications, and the slack given to its clock. */
const DAY_AND_SLACK = 24 * HOUR_MS + 5_000;
const iso = (ms: number) => new Date(ms).toISOString();

type Harness = ReturnType<typeof harness>;

/** Someone grows the volume in the console; a check (as the reconciler's) records what EC2 now reports. */
async function growOutside(h: Harness, sizeGiB: number): Promise<void> {
  await h.ebs.modifyVolume({ ebsVolumeId: (await volumeOf(h)).ebsVolumeId!, sizeGiB });
  await h.clock.advance(5000);
  await h.executor.run(h.batchOf(h.op('check-volume', KEY)));
  await h.watch();
  expect((await volumeOf(h)).observed?.sizeGiB).toBe(sizeGiB);
}

function reconcilerOf(h: Harness): Reconciler {
  return new Reconciler({ store: h.store, queue: h.queue, provider: h.ebs, clock: h.clock, metrics: h.metrics, log: silentLog });
}

/** A direct table write of the client's fields, as the stream delivers it: the change, kept for redelivery. */
async function clientWrites(h: Harness, changes: Partial<Pick<VolumeRecord, 'spec' | 'life' | 'generation'>>): Promise<RecordChange[]> {
  await h.store.update<VolumeRecord>(KEY, changes);
  const delivered = [...h.changes];
  await h.watch();
  return delivered;
}

describe('a spec change EBS cannot make', () => {
  const tagged: VolumeSpec = { sizeGiB: 10, volumeType: 'gp3', availabilityZone: 'eu-west-1a', tags: { team: 'a' } };

  it('a grow beside a changed encryption, written straight into the table, is carried out by no path until the spec is put right', async () => {
    const h = await availableVolume({ team: 'a' });
    const volume = await volumeOf(h);
    const change = await clientWrites(h, { spec: { ...tagged, sizeGiB: 20, encrypted: true }, generation: 2 });

    const rejected = { state: 'available', code: 'InvalidSpecChange', message: 'spec.encrypted: is fixed when the volume is created' };
    expect((await volumeOf(h)).status).toMatchObject(rejected);
    expect(h.queued()).toEqual([]);

    // A duplicate of the change, a late modify message (say, sent for an earlier valid grow), the reconciler's pass.
    await h.watcher.handle(change);
    await h.executor.run(h.batchOf(h.op('modify-volume', KEY), h.op('check-volume', KEY)));
    await h.watch();
    await h.clock.advance(10 * MINUTE);
    await reconcilerOf(h).run();
    await h.drain();
    await h.watch();

    expect(h.ebs.calls.ModifyVolume).toBe(0);
    expect(h.ebs.volume(volume.ebsVolumeId!)?.sizeGiB).toBe(10);
    const after = await volumeOf(h);
    expect(after.status).toMatchObject(rejected);
    expect(after.observedGeneration).toBe(1);

    // Put right: the grow goes ahead, and the rejection goes.
    await clientWrites(h, { spec: { ...tagged, sizeGiB: 20 }, generation: 3 });
    await h.settle(2 * MINUTE);
    await h.watch();
    const fixed = await volumeOf(h);
    expect(h.ebs.calls.ModifyVolume).toBe(1);
    expect(fixed).toMatchObject({ observed: { sizeGiB: 20 }, observedGeneration: 3, status: { state: 'available' } });
    expect(fixed.status.code).toBeUndefined();
  });

  it('the reconciler leaves a rejected spec alone: no work pending, nothing re-enqueued', async () => {
    const h = await availableVolume({ team: 'a' });
    await clientWrites(h, { spec: { ...tagged, sizeGiB: 20, encrypted: true }, generation: 2 });
    await h.clock.advance(10 * MINUTE);
    const report = await reconcilerOf(h).run();
    expect(report.requeued).toEqual([]);
    expect(h.queued()).toEqual([]);
  });

  it('a shrink put back to what EC2 holds clears the rejection, with no EC2 call', async () => {
    const h = await availableVolume({ team: 'a' });
    await clientWrites(h, { spec: { ...tagged, sizeGiB: 5 }, generation: 2 });
    expect((await volumeOf(h)).status).toMatchObject({ code: 'InvalidSpecChange', message: 'spec.sizeGiB: EBS volumes can only grow: 10 GiB cannot become 5 GiB' });
    await clientWrites(h, { spec: tagged, generation: 3 });
    await h.drain();
    const status = (await volumeOf(h)).status;
    expect(status.state).toBe('available');
    expect(status.code).toBeUndefined();
    expect(status.message).toBeUndefined();
    expect(h.ebs.calls.ModifyVolume).toBe(0);
  });

  it('a cleared rejection is written with the time it was cleared, whether the watcher or a late message to the executor clears it', async () => {
    for (const clearer of ['watcher', 'executor'] as const) {
      const h = await availableVolume({ team: 'a' });
      await clientWrites(h, { spec: { ...tagged, sizeGiB: 5 }, generation: 2 });
      await h.clock.advance(MINUTE);
      await h.store.update<VolumeRecord>(KEY, { spec: tagged, generation: 3 });
      if (clearer === 'watcher') await h.watch();
      else {
        h.changes.splice(0); // the stream has not delivered the change yet
        await h.executor.run(h.batchOf(h.op('modify-volume', KEY)));
      }
      const volume = await volumeOf(h);
      expect(volume.observedGeneration, clearer).toBe(3);
      expect(volume.status, clearer).toEqual({ state: 'available', attempts: 0, updatedAt: new Date(h.clock.now()).toISOString() });
    }
  });

  it('a volume whose spec was rejected is deleted when the client deletes it', async () => {
    const h = await availableVolume({ team: 'a' });
    const ebsVolumeId = (await volumeOf(h)).ebsVolumeId!;
    await clientWrites(h, { spec: { ...tagged, sizeGiB: 20, tags: { team: 'b' } }, generation: 2 });
    await clientWrites(h, { life: 'dying' });
    await h.settle(10_000);
    await h.watch();
    expect(await h.store.get(KEY)).toBeUndefined();
    expect(h.ebs.volume(ebsVolumeId)).toBeUndefined();
    expect(h.ebs.calls.ModifyVolume).toBe(0);
  });
});

describe('tags read back from the table in another key order', () => {
  it('are the same tags: a grow goes ahead with one ModifyVolume, and the PATCH is allowed', async () => {
    const h = harness({ ebsTimings: { modify: 1000, optimize: 1000 } });
    await h.store.create(newVolume('data-1', {}, { tags: { team: 'a', env: 'prod' } }));
    await h.watch();
    await h.settle(10_000);
    await h.watch();
    // DynamoDB maps need not keep the order they were written in.
    const created = await volumeOf(h);
    await h.store.update<VolumeRecord>(KEY, { createRequest: { ...created.createRequest!, spec: { ...created.createRequest!.spec, tags: { env: 'prod', team: 'a' } } } });
    await h.watch();

    const service = new VolumeService({ store: h.store, clock: h.clock });
    await service.patchVolume('data-1', { sizeGiB: 20 });
    await h.watch();
    await h.settle(2 * MINUTE);
    await h.watch();
    const volume = await volumeOf(h);
    expect(h.ebs.calls.ModifyVolume).toBe(1);
    expect(volume).toMatchObject({ status: { state: 'available' }, observed: { sizeGiB: 20 }, observedGeneration: 2 });
    expect(volume.status.code).toBeUndefined();
  });
});

describe('a volume grown outside the system (EC2 holds 50 GiB, the spec says 10)', () => {
  it('is deleted when the client deletes it, once, duplicates and late deliveries notwithstanding', async () => {
    const h = await availableVolume({ team: 'a' });
    const ebsVolumeId = (await volumeOf(h)).ebsVolumeId!;
    await growOutside(h, 50);
    const change = await clientWrites(h, { life: 'dying' });
    expect(h.queued()).toEqual([{ op: 'delete-volume', key: 'data-1', delaySeconds: 0 }]);
    await h.watcher.handle(change);
    await h.settle(10_000);
    await h.watch();
    await h.watcher.handle(change);
    await h.drain();
    expect(await h.store.get(KEY)).toBeUndefined();
    expect(h.ebs.volume(ebsVolumeId)).toBeUndefined();
    expect(h.ebs.calls.DeleteVolume).toBe(1);
  });

  it('says why its spec cannot be met, and takes a grow past what EC2 holds', async () => {
    const h = await availableVolume({ team: 'a' });
    await growOutside(h, 50);
    expect((await volumeOf(h)).status).toMatchObject({ state: 'available', code: 'InvalidSpecChange', message: 'spec.sizeGiB: EBS volumes can only grow: 50 GiB cannot become 10 GiB' });
    // 40 grows the spec but would shrink the volume.
    await clientWrites(h, { spec: { ...(await volumeOf(h)).spec, sizeGiB: 40 }, generation: 2 });
    expect((await volumeOf(h)).status.message).toBe('spec.sizeGiB: EBS volumes can only grow: 50 GiB cannot become 40 GiB');
    // EC2 takes the next modification once the outside grow has completed (it has: EBS took 2 s).
    await clientWrites(h, { spec: { ...(await volumeOf(h)).spec, sizeGiB: 60 }, generation: 3 });
    await h.settle(2 * MINUTE);
    await h.watch();
    expect(await volumeOf(h)).toMatchObject({ observed: { sizeGiB: 60 }, observedGeneration: 3 });
    expect((await volumeOf(h)).status.code).toBeUndefined();
  });

  it('takes a tag change all the same: the tags are set, the size still said to be impossible, and no ModifyVolume', async () => {
    const h = await availableVolume({ team: 'a' });
    await growOutside(h, 50);
    const modifies = h.ebs.calls.ModifyVolume;
    // The API takes a tag-only change of such a volume (judged on its tags).
    await new VolumeService({ store: h.store, clock: h.clock }).patchVolume('data-1', { tags: { team: 'b' } });
    await h.watch();
    await h.settle(MINUTE);
    await h.watch();
    const volume = await volumeOf(h);
    expect(h.ebs.volume(volume.ebsVolumeId!)?.tags).toMatchObject({ team: 'b' });
    expect(volume).toMatchObject({ observed: { sizeGiB: 50, tags: { team: 'b' } }, status: { state: 'available', code: 'InvalidSpecChange', message: 'spec.sizeGiB: EBS volumes can only grow: 50 GiB cannot become 10 GiB' } });
    expect(h.ebs.calls.ModifyVolume).toBe(modifies);
  });

  it('in error, is retried by the API: back to pending and checked, not rejected, and no ModifyVolume', async () => {
    const h = await availableVolume({ team: 'a' });
    await growOutside(h, 50);
    const modifies = h.ebs.calls.ModifyVolume;
    await h.store.update<VolumeRecord>(KEY, {
      status: { state: 'error', code: 'Timeout', message: 'budget spent', attempts: 5, updatedAt: new Date(h.clock.now()).toISOString() },
    });
    await h.watch();

    await new VolumeService({ store: h.store, clock: h.clock }).retryVolume('data-1');
    const retry = [...h.changes];
    await h.watch();
    expect((await volumeOf(h)).status).toMatchObject({ state: 'pending', message: 'retry requested' });
    expect(h.queued()).toEqual([{ op: 'check-volume', key: 'data-1', delaySeconds: 0 }]);

    await h.drain();
    await h.watcher.handle(retry); // a late duplicate of the retry
    await h.drain();
    await h.watch();
    const after = await volumeOf(h);
    expect(after.status).toMatchObject({ state: 'available', code: 'InvalidSpecChange', message: expect.stringMatching(/50 GiB cannot become 10 GiB/) });
    expect(h.ebs.calls.ModifyVolume).toBe(modifies);
  });
});

describe('a volume modified outside the system, noticed by the reconciler', () => {
  /** Runs the reconciler, then what it enqueued, as the schedule and the queue would. */
  async function reconcile(h: Harness) {
    const report = await reconcilerOf(h).run();
    await h.drain();
    await h.watch();
    return report;
  }

  it('grown: the record says EC2 holds 50 GiB and why its spec cannot be met, with no ModifyVolume; the next pass finds nothing to do', async () => {
    const h = await availableVolume({ team: 'a' });
    const ebsVolumeId = (await volumeOf(h)).ebsVolumeId!;
    await h.ebs.modifyVolume({ ebsVolumeId, sizeGiB: 50 });
    const modifies = h.ebs.calls.ModifyVolume;
    await h.clock.advance(10 * MINUTE);

    const report = await reconcile(h);
    expect(report.requeued).toEqual([{ key: 'volume/data-1', reason: 'EC2 reports sizeGiB 50 (the record observed 10)' }]);
    const volume = await volumeOf(h);
    expect(volume.observed?.sizeGiB).toBe(50);
    expect(volume.status).toMatchObject({ state: 'available', code: 'InvalidSpecChange', message: 'spec.sizeGiB: EBS volumes can only grow: 50 GiB cannot become 10 GiB' });
    await h.clock.advance(10 * MINUTE);
    expect((await reconcile(h)).requeued).toEqual([]);
    expect(h.ebs.calls.ModifyVolume).toBe(modifies);
  });

  it('given other IOPS: put back to the spec with one ModifyVolume once the outside change completed', async () => {
    const h = await availableVolume({ team: 'a' });
    const ebsVolumeId = (await volumeOf(h)).ebsVolumeId!;
    await h.ebs.modifyVolume({ ebsVolumeId, iops: 4000 });
    const modifies = h.ebs.calls.ModifyVolume;
    await h.clock.advance(10 * MINUTE);

    const report = await reconcile(h);
    expect(report.requeued).toEqual([{ key: 'volume/data-1', reason: 'EC2 reports iops 4000 (the record observed 3000)' }]);
    await h.settle(MINUTE);
    await h.watch();
    expect(provisionedPerformance(h.ebs.volume(ebsVolumeId)!)).toEqual({ iops: 3000, throughput: 125 });
    const putBack = await volumeOf(h);
    expect(provisionedPerformance(putBack.observed!)).toEqual({ iops: 3000, throughput: 125 });
    expect(putBack).toMatchObject({ status: { state: 'available' }, observedGeneration: 1 });
    expect(putBack.status.code).toBeUndefined();
    expect(h.ebs.calls.ModifyVolume - modifies).toBe(1);
    // The outside one counts toward EC2's limit, as the record now knows.
    expect(putBack.earlierModificationStarts).toHaveLength(1);
  });

  it("given other IOPS four times in an hour in the console: EC2 refuses the put-back once, and the record waits a day from the latest outside start (EC2's message unread), then puts it back", async () => {
    const h = await availableVolume({ team: 'a' });
    const ebsVolumeId = (await volumeOf(h)).ebsVolumeId!;
    for (const iops of [3500, 4000, 4500, 5000]) {
      await h.ebs.modifyVolume({ ebsVolumeId, iops });
      await h.clock.advance(15 * MINUTE);
    }
    const lastOutside = (await h.ebs.describeVolumeModifications([ebsVolumeId]))[0]!.startedAt!;
    const modifies = h.ebs.calls.ModifyVolume;

    const report = await reconcile(h);
    expect(report.requeued).toEqual([{ key: 'volume/data-1', reason: 'EC2 reports iops 5000 (the record observed 3000)' }]);
    expect((await volumeOf(h)).observed?.iops).toBe(5000);
    // The record knew none of them: EC2 refuses, and the record takes the 4 it counts as started by the latest it lists.
    await h.settle(MINUTE);
    await h.watch();
    const waitsUntil = lastOutside + DAY_AND_SLACK;
    const waiting = await volumeOf(h);
    expect(waiting.status).toMatchObject({
      state: 'available',
      code: 'VolumeModificationRateExceeded',
      message: `EC2 allows 4 modifications per volume in any 24 hours; trying again at ${iso(waitsUntil)}`,
      nextAttemptAt: iso(waitsUntil),
    });
    expect(waiting).toMatchObject({ lastModificationStartedAt: iso(lastOutside), earlierModificationStarts: [iso(lastOutside), iso(lastOutside), iso(lastOutside)] });
    expect(h.ebs.calls.ModifyVolume - modifies).toBe(1);

    // The reconciler's hourly passes leave the wait alone; nothing is asked of EC2 before it ends.
    while (h.clock.now() + HOUR_MS < waitsUntil) {
      await h.settle(HOUR_MS, 10 * MINUTE);
      await reconcile(h);
    }
    expect(h.ebs.calls.ModifyVolume - modifies).toBe(1);
    for (let i = 0; i < 12; i++) await reconcile(h).then(() => h.settle(10 * MINUTE, MINUTE));
    expect(provisionedPerformance(h.ebs.volume(ebsVolumeId)!)).toEqual({ iops: 3000, throughput: 125 });
    const putBack = await volumeOf(h);
    expect(provisionedPerformance(putBack.observed!)).toEqual({ iops: 3000, throughput: 125 });
    expect(putBack).toMatchObject({ status: { state: 'available' }, observedGeneration: 1 });
    expect(putBack.status.code).toBeUndefined();
    expect(h.ebs.calls.ModifyVolume - modifies).toBe(2);
    await h.clock.advance(10 * MINUTE);
    expect((await reconcile(h)).requeued).toEqual([]);
  });

});

describe('IOPS or throughput cleared with null (a PATCH)', () => {
  /** Volume data-1, 100 GiB gp3 with the IOPS and throughput given, created and available. */
  async function tunedVolume(performance: Pick<VolumeSpec, 'iops' | 'throughput'>): Promise<{ h: Harness; service: VolumeService }> {
    const h = harness({ ebsTimings: { modify: 1000, optimize: 1000 } });
    await h.store.create(newVolume('data-1', {}, { sizeGiB: 100, ...performance }));
    await h.watch();
    await h.settle(10_000);
    await h.watch();
    expect(await volumeOf(h)).toMatchObject({ status: { state: 'available' }, observed: performance, observedGeneration: 1 });
    return { h, service: new VolumeService({ store: h.store, clock: h.clock }) };
  }

  it("takes a gp3 volume back to its baseline (3000 IOPS, 125 MiB/s) with one ModifyVolume; duplicate deliveries add none", async () => {
    const { h, service } = await tunedVolume({ iops: 6000, throughput: 250 });
    expect((await service.patchVolume('data-1', { iops: null, throughput: null })).generation).toBe(2);
    const change = [...h.changes];
    await h.watch();
    expect(h.queued()).toEqual([{ op: 'modify-volume', key: 'data-1', delaySeconds: 0 }]);

    await h.watcher.handle(change); // delivered twice before the executor runs
    await h.settle(2 * MINUTE);
    await h.watch();
    await h.watcher.handle(change); // and once more, late
    await h.settle(MINUTE);
    await h.watch();

    const volume = await volumeOf(h);
    expect(h.ebs.calls.ModifyVolume).toBe(1);
    expect(h.ebs.volume(volume.ebsVolumeId!)).toMatchObject({ iops: 3000, throughput: 125 });
    expect(volume).toMatchObject({ status: { state: 'available' }, observed: { iops: 3000, throughput: 125 }, generation: 2, observedGeneration: 2 });
    expect(volume.status.code).toBeUndefined();
  });

  it('when EC2 already holds the baseline, observedGeneration catches up with no EC2 call; a duplicate delivery writes nothing', async () => {
    const { h, service } = await tunedVolume({ iops: 3000, throughput: 125 });
    const calls = { ...h.ebs.calls };
    await service.patchVolume('data-1', { iops: null, throughput: null });
    const change = [...h.changes];
    await h.watch();
    expect(h.queued()).toEqual([]);
    expect(await volumeOf(h)).toMatchObject({ status: { state: 'available' }, generation: 2, observedGeneration: 2 });

    const writes = h.store.writes;
    await h.watcher.handle(change);
    await h.executor.run(h.batchOf(h.op('modify-volume', KEY))); // a late message finds nothing to do
    await h.watch();
    expect(h.store.writes).toBe(writes);
    expect(h.ebs.calls).toEqual(calls);
  });

  it('met by a late modify message before the watcher saw it, is recorded by the executor with no EC2 call', async () => {
    const { h } = await tunedVolume({ iops: 3000, throughput: 125 });
    const calls = { ...h.ebs.calls };
    const spec = (await volumeOf(h)).spec;
    await h.store.update<VolumeRecord>(KEY, { spec: { sizeGiB: spec.sizeGiB, volumeType: spec.volumeType, availabilityZone: spec.availabilityZone }, generation: 2 });
    h.changes.splice(0); // the stream has not delivered the change yet
    await h.executor.run(h.batchOf(h.op('modify-volume', KEY)));
    expect(await volumeOf(h)).toMatchObject({ generation: 2, observedGeneration: 2 });
    expect(h.ebs.calls).toEqual(calls);
  });

  it('catching up observedGeneration leaves the status as it was, updatedAt included, whether the watcher or the executor records it', async () => {
    for (const recorder of ['watcher', 'executor'] as const) {
      const { h, service } = await tunedVolume({ iops: 3000, throughput: 125 });
      const status = (await volumeOf(h)).status;
      await h.clock.advance(MINUTE);
      await service.patchVolume('data-1', { iops: null, throughput: null });
      if (recorder === 'watcher') await h.watch();
      else {
        h.changes.splice(0); // the stream has not delivered the change yet
        await h.executor.run(h.batchOf(h.op('modify-volume', KEY)));
      }
      const volume = await volumeOf(h);
      expect(volume.observedGeneration, recorder).toBe(2);
      expect(volume.status, recorder).toEqual(status);
    }
  });
});

describe('CreateVolume repeated with the same token', () => {
  it('asks for the spec it first asked for, though the spec changed meanwhile; the change follows as a modification', async () => {
    const h = harness({ ebsTimings: { modify: 1000, optimize: 1000 } });
    await h.store.create(newVolume('data-1'));
    // CreateVolume succeeds but its answer is lost with the status write after it.
    const lossy = executorLosingWriteAfterCreate(h);
    await lossy.run(h.batchOf(h.op('create-volume', KEY)));
    expect(await volumeOf(h)).toMatchObject({ status: { state: 'creating' }, createRequest: { spec: { sizeGiB: 10 } } });
    h.changes.splice(0);

    await clientWrites(h, { spec: { ...(await volumeOf(h)).spec, sizeGiB: 20 }, generation: 2 });
    await h.clock.advance(200_000);
    await h.settle(10_000);
    await h.watch();
    await h.settle(10_000);

    expect((await h.ebs.listOwnedVolumes({ limit: 10 })).items).toHaveLength(1);
    expect(await volumeOf(h)).toMatchObject({ status: { state: 'available' }, observed: { sizeGiB: 20 }, observedGeneration: 2 });
  });
});

describe("a grow waiting for EC2's limit (4 modifications per volume in any 24 hours)", () => {
  const attachment = attachmentKey('data-1');

  /** Runs the pipeline (executor and watcher) for `ms`, in steps of `stepMs`. */
  async function run(h: Harness, ms: number, stepMs = 5000): Promise<void> {
    for (let spent = 0; spent < ms; spent += stepMs) {
      await h.watch();
      await h.settle(stepMs, stepMs);
    }
    await h.watch();
  }

  /** Runs the pipeline in steps of 10 minutes, then of a minute, up to (never past) the minute before `atMs`. */
  async function runUntil(h: Harness, atMs: number): Promise<void> {
    for (const step of [10 * MINUTE, MINUTE]) await run(h, Math.floor((atMs - 1 - h.clock.now()) / step) * step, step);
  }

  /** The start of the latest modification EC2 lists for data-1 (epoch ms). */
  async function latestStart(h: Harness): Promise<number> {
    return (await h.ebs.describeVolumeModifications([(await volumeOf(h)).ebsVolumeId!]))[0]!.startedAt!;
  }

  /** data-1 grown `times` times, 10 GiB at a time, each once EC2 completed the one before; their starts. */
  async function grown(h: Harness, times: number): Promise<number[]> {
    const starts: number[] = [];
    for (let i = 1; i <= times; i++) {
      const { spec, generation } = await volumeOf(h);
      const sizeGiB = spec.sizeGiB + 10;
      await clientWrites(h, { spec: { ...spec, sizeGiB }, generation: generation + 1 });
      await run(h, 30_000);
      expect(await volumeOf(h)).toMatchObject({ status: { state: 'available' }, observed: { sizeGiB }, observedGeneration: generation + 1 });
      starts.push(await latestStart(h));
    }
    return starts;
  }

  /**
   * data-1 grown four times to 50 GiB (generation 5), then asked to grow to 60 (generation 6): the
   * time its wait ends, 24 hours (and the slack) after the first grow started. The system knows
   * when its own grows started, so it asks EC2 for no modification EC2 would refuse.
   */
  async function waitingGrow(): Promise<{ h: Harness; waitsUntil: string }> {
    const h = await availableVolume({ team: 'a' });
    const starts = await grown(h, 4);
    await clientWrites(h, { spec: { ...(await volumeOf(h)).spec, sizeGiB: 60 }, generation: 6 });
    await run(h, 5000);
    const waitsUntil = iso(starts[0]! + DAY_AND_SLACK);
    expect((await volumeOf(h)).status).toMatchObject({ state: 'available', code: 'VolumeModificationRateExceeded', nextAttemptAt: waitsUntil });
    expect(h.ebs.calls.ModifyVolume).toBe(4);
    return { h, waitsUntil };
  }

  /** The volume's status says, in `state`, that its modification waits until `waitsUntil`. */
  async function expectWaiting(h: Harness, state: string, waitsUntil: string): Promise<void> {
    expect((await volumeOf(h)).status).toMatchObject({
      state,
      code: 'VolumeModificationRateExceeded',
      message: `EC2 allows 4 modifications per volume in any 24 hours; trying again at ${waitsUntil}`,
      nextAttemptAt: waitsUntil,
      attempts: 0,
    });
  }

  it('asked for while the first grow is still modifying: made once EC2 completed the first, with no wait for the limit and no call EC2 refuses', async () => {
    const h = await availableVolume({ team: 'a' });
    await clientWrites(h, { spec: { ...(await volumeOf(h)).spec, sizeGiB: 20 }, generation: 2 });
    await h.drain();
    expect((await volumeOf(h)).status.state).toBe('modifying');
    await clientWrites(h, { spec: { ...(await volumeOf(h)).spec, sizeGiB: 30 }, generation: 3 });
    await run(h, 30_000);
    const grownTwice = await volumeOf(h);
    expect(grownTwice).toMatchObject({ status: { state: 'available', attempts: 0 }, observed: { sizeGiB: 30 }, observedGeneration: 3 });
    expect(grownTwice.status.code).toBeUndefined();
    expect(h.ebs.calls.ModifyVolume).toBe(2);
  });

  it('asked for while the fourth grow is still modifying: the check that sees it done shows the wait, and the grow is made when the window allows, with no reconciler', async () => {
    const h = await availableVolume({ team: 'a' });
    const [first] = await grown(h, 3);
    await clientWrites(h, { spec: { ...(await volumeOf(h)).spec, sizeGiB: 50 }, generation: 5 });
    await h.drain();
    expect((await volumeOf(h)).status.state).toBe('modifying');
    await clientWrites(h, { spec: { ...(await volumeOf(h)).spec, sizeGiB: 60 }, generation: 6 });
    await run(h, 30_000);
    const waiting = await volumeOf(h);
    expect(waiting).toMatchObject({ status: { state: 'available', code: 'VolumeModificationRateExceeded', nextAttemptAt: iso(first! + DAY_AND_SLACK) }, observed: { sizeGiB: 50 } });
    expect(h.queued()).toContainEqual(expect.objectContaining({ op: 'modify-volume' }));
    expect(h.ebs.calls.ModifyVolume).toBe(4);

    await runUntil(h, first! + DAY_AND_SLACK);
    expect(h.ebs.calls.ModifyVolume).toBe(4);
    await run(h, 2 * MINUTE, MINUTE);
    expect(await volumeOf(h)).toMatchObject({ status: { state: 'available', attempts: 0 }, observed: { sizeGiB: 60 }, observedGeneration: 6 });
    expect(h.ebs.calls.ModifyVolume).toBe(5);
  });

  it('is attached and detached meanwhile with no ModifyVolume, the status saying in-use or available and the wait; grows when the window allows', async () => {
    const { h, waitsUntil } = await waitingGrow();

    await h.store.create(newAttachment('data-1'));
    await run(h, 30_000);
    expect((await h.store.get(attachment))?.status.state).toBe('attached');
    await expectWaiting(h, 'in-use', waitsUntil);
    expect(h.ebs.calls.ModifyVolume).toBe(4);

    // The reconciler's pass, duplicate and late messages.
    await h.clock.advance(10 * MINUTE);
    await reconcilerOf(h).run();
    await h.executor.run(h.batchOf(h.op('modify-volume', KEY), h.op('check-volume', KEY)));
    await h.executor.run(h.batchOf(h.op('modify-volume', KEY)));
    await run(h, 10_000);
    await expectWaiting(h, 'in-use', waitsUntil);
    expect(h.ebs.calls.ModifyVolume).toBe(4);

    await h.store.update(attachment, { life: 'dying' });
    await run(h, 30_000);
    expect(await h.store.get(attachment)).toBeUndefined();
    await expectWaiting(h, 'available', waitsUntil);
    await h.clock.advance(10 * MINUTE);
    await reconcilerOf(h).run();
    await run(h, 10_000);
    await expectWaiting(h, 'available', waitsUntil);
    expect(h.ebs.calls.ModifyVolume).toBe(4);

    await runUntil(h, Date.parse(waitsUntil));
    expect(h.ebs.calls.ModifyVolume).toBe(4);
    await run(h, 10 * MINUTE, MINUTE);
    const grownAgain = await volumeOf(h);
    expect(grownAgain).toMatchObject({ status: { state: 'available', attempts: 0 }, observed: { sizeGiB: 60 }, observedGeneration: 6 });
    expect(grownAgain.status.code).toBeUndefined();
    expect(h.ebs.calls.ModifyVolume).toBe(5);
  });

  it.each([
    ['throttled', new ProviderError('throttled', 'RequestLimitExceeded', 'Request limit exceeded.')],
    ['failing', new ProviderError('transient', 'InternalError', 'An internal error has occurred')],
  ])('a check meanwhile finding DescribeVolumes %s writes nothing (a look at a volume at rest is no attempt); the wait stays shown, with no ModifyVolume before it ends', async (_, error) => {
    const { h, waitsUntil } = await waitingGrow();
    const waiting = await volumeOf(h);
    h.ebs.failNext('DescribeVolumes', error);
    // A check asked for at rest: an attachment's change, or the reconciler.
    await h.executor.run(h.batchOf(h.op('check-volume', KEY)));
    expect(await volumeOf(h)).toEqual(waiting);
    await run(h, 30 * MINUTE, MINUTE);
    expect((await volumeOf(h)).status).toMatchObject({
      state: 'available',
      code: 'VolumeModificationRateExceeded',
      message: `EC2 allows 4 modifications per volume in any 24 hours; trying again at ${waitsUntil}`,
      nextAttemptAt: waitsUntil,
    });
    expect(h.ebs.calls.ModifyVolume).toBe(4);

    await runUntil(h, Date.parse(waitsUntil));
    expect(h.ebs.calls.ModifyVolume).toBe(4);
    await run(h, 10 * MINUTE, MINUTE);
    expect(await volumeOf(h)).toMatchObject({ status: { state: 'available', attempts: 0 }, observed: { sizeGiB: 60 }, observedGeneration: 6 });
    expect(h.ebs.calls.ModifyVolume).toBe(5);
  });

  it('a further grow by the client waits too, with no ModifyVolume, and is the one made when the window allows', async () => {
    const { h, waitsUntil } = await waitingGrow();
    const change = await clientWrites(h, { spec: { ...(await volumeOf(h)).spec, sizeGiB: 70 }, generation: 7 });
    await h.watcher.handle(change); // a duplicate of the change
    await run(h, 10 * MINUTE, MINUTE);
    await expectWaiting(h, 'available', waitsUntil);
    expect(await volumeOf(h)).toMatchObject({ generation: 7, observedGeneration: 5, observed: { sizeGiB: 50 } });
    expect(h.ebs.calls.ModifyVolume).toBe(4);

    await runUntil(h, Date.parse(waitsUntil));
    await run(h, 10 * MINUTE, MINUTE);
    expect(await volumeOf(h)).toMatchObject({ status: { state: 'available', attempts: 0 }, observed: { sizeGiB: 70 }, observedGeneration: 7 });
    expect(h.ebs.calls.ModifyVolume).toBe(5);
  });

  it('a spec EBS cannot make, written during the wait and then put right, makes no ModifyVolume before the wait ends; the grow is made then', async () => {
    const { h, waitsUntil } = await waitingGrow();
    const calls = h.ebs.calls.ModifyVolume;
    // A shrink below what EC2 holds: the rejection replaces the wait in the status.
    await clientWrites(h, { spec: { ...(await volumeOf(h)).spec, sizeGiB: 10 }, generation: 7 });
    await run(h, 10 * MINUTE, MINUTE);
    expect((await volumeOf(h)).status.code).toBe('InvalidSpecChange');
    await clientWrites(h, { spec: { ...(await volumeOf(h)).spec, sizeGiB: 60 }, generation: 8 });
    await run(h, 10 * MINUTE, MINUTE);
    await expectWaiting(h, 'available', waitsUntil);
    expect(h.ebs.calls.ModifyVolume).toBe(calls);

    await runUntil(h, Date.parse(waitsUntil));
    expect(h.ebs.calls.ModifyVolume).toBe(calls);
    await run(h, 2 * MINUTE, 5000);
    expect(await volumeOf(h)).toMatchObject({ status: { state: 'available', attempts: 0 }, observed: { sizeGiB: 60 }, observedGeneration: 8 });
    expect(h.ebs.calls.ModifyVolume).toBe(calls + 1);
  });

  it("whose own message a check consumed and could not follow up (its write refused on a record changed meanwhile) comes back as its own and is made when the wait ends, with no reconciler", async () => {
    const { h, waitsUntil } = await waitingGrow();
    const calls = h.ebs.calls.ModifyVolume;
    // Attached outside, so that a check has something to write.
    await h.ebs.attachVolume({ ebsVolumeId: (await volumeOf(h)).ebsVolumeId!, instanceId: INSTANCE, device: '/dev/sdf' });
    // The wait's message, delayed as far as a message may be, becomes visible (well before the wait ends)…
    await h.clock.advance(15 * MINUTE);
    const received = h.queue.receive(100);
    expect(received.map((r) => r.message.op)).toEqual(['modify-volume']);
    // …and is delivered in one batch after a check, whose write a concurrent change of the record refuses.
    h.store.failNext('update', new ConditionFailedError('record changed meanwhile'));
    await h.executor.run([...h.batchOf(h.op('check-volume', KEY)), ...received.map((r) => ({ messageId: r.messageId, message: r.message }))]);
    for (const r of received) h.queue.delete(r.receiptHandle);
    // The modification's message, not the check's: it takes its rate token ahead.
    expect(h.queue.pending().map((p) => [p.message.op, p.message.dueAt])).toEqual([['modify-volume', Date.parse(waitsUntil)]]);

    await runUntil(h, Date.parse(waitsUntil));
    await run(h, 3 * MINUTE, MINUTE);
    expect(await volumeOf(h)).toMatchObject({ observed: { sizeGiB: 60 }, observedGeneration: 6 });
    expect(h.ebs.calls.ModifyVolume).toBe(calls + 1);
  });

  it("a second grow an hour after the system's own first grow is made at once; a fifth within 24 hours makes no ModifyVolume EC2 would refuse: it waits until the first one's start + 24 hours, and is made then", async () => {
    const h = await availableVolume({ team: 'a' });
    const [first] = await grown(h, 1);
    await h.clock.advance(60 * MINUTE);
    await grown(h, 1);
    expect(h.ebs.calls.ModifyVolume).toBe(2);
    expect((await latestStart(h)) - first!).toBeLessThan(2 * HOUR_MS);
    // The third and fourth, then the fifth.
    await grown(h, 2);
    expect(h.ebs.calls.ModifyVolume).toBe(4);
    await clientWrites(h, { spec: { ...(await volumeOf(h)).spec, sizeGiB: 60 }, generation: 6 });
    await run(h, 5 * MINUTE, MINUTE);
    const waitsUntil = iso(first! + DAY_AND_SLACK);
    await expectWaiting(h, 'available', waitsUntil);
    expect(h.ebs.calls.ModifyVolume).toBe(4);

    await runUntil(h, Date.parse(waitsUntil));
    expect(h.ebs.calls.ModifyVolume).toBe(4);
    await run(h, 2 * MINUTE, 5000);
    expect(await volumeOf(h)).toMatchObject({ status: { state: 'available', attempts: 0 }, observed: { sizeGiB: 60 }, observedGeneration: 6 });
    expect(h.ebs.calls.ModifyVolume).toBe(5);
  });

  it("knows the system's own grow whose answer was lost and which EC2 finished before the message came back: it counts toward the 4, and a fifth waits for the window", async () => {
    const h = await availableVolume({ team: 'a' });
    const starts = await grown(h, 3);
    // ModifyVolume reaches EC2; the status write after it fails, so its message comes back later.
    const provider: VolumeProvider = Object.create(h.ebs);
    provider.modifyVolume = async (request) => {
      await h.ebs.modifyVolume(request);
      h.store.failNext('update', new Error('DynamoDB unavailable'));
    };
    const losing = new Executor({ store: h.store, queue: h.queue, provider, clock: h.clock, metrics: h.metrics, log: silentLog });
    await clientWrites(h, { spec: { ...(await volumeOf(h)).spec, sizeGiB: 50 }, generation: 5 });
    await losing.run(h.batchOf(h.op('modify-volume', KEY)));
    expect(h.ebs.calls.ModifyVolume).toBe(4);
    expect((await volumeOf(h)).lastModificationStartedAt).toBe(iso(starts[2]!));
    const fourth = await latestStart(h);

    // EC2 finished it by the time the message is delivered again: no call, the record learns its start.
    await h.clock.advance(10 * MINUTE);
    await h.executor.run(h.batchOf(h.op('modify-volume', KEY)));
    await h.watch();
    expect(await volumeOf(h)).toMatchObject({
      observed: { sizeGiB: 50 },
      observedGeneration: 5,
      lastModificationStartedAt: iso(fourth),
      earlierModificationStarts: starts.map(iso),
    });

    await clientWrites(h, { spec: { ...(await volumeOf(h)).spec, sizeGiB: 60 }, generation: 6 });
    await run(h, 5 * MINUTE, MINUTE);
    expect(h.ebs.calls.ModifyVolume).toBe(4);
    await expectWaiting(h, 'available', iso(starts[0]! + DAY_AND_SLACK));
  });
});

describe('a ModifyVolume whose answer was never recorded', () => {
  /** Volume data-1 available at gp3's baseline, on an EBS model whose modifications take 10 minutes to optimize. */
  async function slowModifyingVolume(rateBudget?: MemoryRateBudget): Promise<Harness> {
    const h = harness({ ebsTimings: { modify: 10 * MINUTE, optimize: MINUTE }, ...(rateBudget ? { rateBudget } : {}) });
    await data1Created(h, 10_000);
    expect((await volumeOf(h)).status.state).toBe('available');
    return h;
  }

  /** The client asks for 4000 IOPS; EC2 accepts the ModifyVolume, then its answer, or the write after it, is lost. */
  async function sentUnrecorded(h: Harness, loss: 'answer' | 'write'): Promise<void> {
    await clientWrites(h, { spec: { ...(await volumeOf(h)).spec, iops: 4000 }, generation: 2 });
    const modifyVolume = h.ebs.modifyVolume.bind(h.ebs);
    h.ebs.modifyVolume = async (request) => {
      await modifyVolume(request);
      h.ebs.modifyVolume = modifyVolume;
      if (loss === 'answer') throw new ProviderError('transient', 'RequestTimeout', 'ModifyVolume timed out');
      // The invocation dies before the write after the call.
      h.store.failNext('update', new Error('invocation ended'));
    };
    await h.executor.run(h.batchOf(h.op('modify-volume', KEY)));
    h.queue.receive(100).forEach((m) => h.queue.delete(m.receiptHandle));
    const volume = await volumeOf(h);
    expect(h.ebs.calls.ModifyVolume).toBe(1);
    expect(volume.modificationSentAt).toEqual(expect.any(String));
    expect(volume.observed?.iops ?? 3000).toBe(3000);
  }

  /**
   * The client puts iops back to 3000 (generation 3), which is not taken as held at once; within the
   * next hour (the lost call's modification completed, then the one back) EC2 ends at 3000 and the
   * record says so, marker cleared.
   */
  async function expectSpecPutBackHeld(h: Harness): Promise<void> {
    await clientWrites(h, { spec: { ...(await volumeOf(h)).spec, iops: 3000 }, generation: 3 });
    expect((await volumeOf(h)).observedGeneration).not.toBe(3);
    await expectHeldAt3000WithinAnHour(h);
  }

  /** An hour of the pipeline, after which EC2 and the record hold the spec put back (generation 3), marker cleared. */
  async function expectHeldAt3000WithinAnHour(h: Harness): Promise<VolumeRecord> {
    for (let i = 0; i < 60; i++) {
      await h.watch();
      await h.settle(MINUTE, MINUTE);
    }
    const volume = await volumeOf(h);
    expect(h.ebs.volume(volume.ebsVolumeId!)).toMatchObject({ iops: 3000 });
    expect(volume).toMatchObject({ status: { state: 'available' }, observed: { iops: 3000 }, observedGeneration: 3 });
    expect(volume.modificationSentAt).toBeUndefined();
    return volume;
  }

  it('keeps its time when the retry, made before EC2 lists the modification, is refused for the one under way: a spec put back is still not taken as held', async () => {
    const h = await slowModifyingVolume();
    // EC2 lists a modification a little after accepting it (within the describe grace).
    h.ebs.modificationListingDelayMs = 30_000;
    await sentUnrecorded(h, 'answer');
    const sentAt = (await volumeOf(h)).modificationSentAt;
    // The retry: EC2 lists no modification yet, so the executor asks again, and EC2 refuses it for the one it is making.
    await h.clock.advance(10_000);
    await h.executor.run(h.batchOf(h.op('modify-volume', KEY)));
    expect(h.ebs.calls.ModifyVolume).toBe(2);
    expect(await volumeOf(h)).toMatchObject({ modificationSentAt: sentAt, status: { code: 'IncorrectModificationState' } });

    await expectSpecPutBackHeld(h);
  });

  for (const loss of ['answer', 'write'] as const) {
    it(`is not taken for EC2 holding a spec put back meanwhile: EC2 ends at the spec once the lost call's modification completed (${loss} lost)`, async () => {
      const h = await slowModifyingVolume();
      await sentUnrecorded(h, loss);
      // The client puts the spec back before anything looks again; EC2 still describes 3000 IOPS.
      await expectSpecPutBackHeld(h);
      expect(h.ebs.calls.ModifyVolume).toBe(2); // ours to 4000, and the one back to 3000: none EC2 refuses
    });
  }

  it('is recognised in a modification EC2 dates to the second, before the time the record wrote: the spec held is recorded at once', async () => {
    const h = await availableVolume({ team: 'a' });
    await h.clock.advance(500);
    await sentUnrecorded(h, 'answer');
    // EC2 reports a modification's start to the second.
    const describeModifications = h.ebs.describeVolumeModifications.bind(h.ebs);
    h.ebs.describeVolumeModifications = async (ids) =>
      (await describeModifications(ids)).map((m) => (m.startedAt === undefined ? m : { ...m, startedAt: Math.floor(m.startedAt / 1000) * 1000 }));
    await h.clock.advance(10_000);
    await h.executor.run(h.batchOf(h.op('modify-volume', KEY)));
    const volume = await volumeOf(h);
    expect(volume).toMatchObject({ status: { state: 'available' }, observed: { iops: 4000 }, observedGeneration: 2 });
    expect(volume.status.code).toBeUndefined();
    expect(volume.modificationSentAt).toBeUndefined();
    expect(h.ebs.calls.ModifyVolume).toBe(1);
  });

  it('takes no rate token for the look once the client has put the spec back: EC2 making the lost call is waited for, with no call', async () => {
    const rateBudget = new MemoryRateBudget();
    const h = await slowModifyingVolume(rateBudget);
    await sentUnrecorded(h, 'answer');
    await clientWrites(h, { spec: { ...(await volumeOf(h)).spec, iops: 3000 }, generation: 3 });
    await h.clock.advance(10_000);
    const mutatingBucket = rateBudget.level('AttachVolume');
    await h.executor.run(h.batchOf(h.op('modify-volume', KEY)));
    expect(h.ebs.calls.ModifyVolume).toBe(1);
    expect(rateBudget.level('AttachVolume')).toEqual(mutatingBucket);
    const volume = await volumeOf(h);
    expect(volume).toMatchObject({ status: { state: 'available' }, modificationSentAt: expect.any(String) });
    expect(volume.observedGeneration).not.toBe(3);
  });

  it('with the spec put back before EC2 lists it, waits out the describe grace saying so (ModificationUnconfirmed), with no call, and then holds the spec put back', async () => {
    const h = await slowModifyingVolume();
    // EC2 lists a modification a little after accepting it (within the describe grace).
    h.ebs.modificationListingDelayMs = 30_000;
    await sentUnrecorded(h, 'answer');
    const sentAt = (await volumeOf(h)).modificationSentAt;
    await h.store.update<VolumeRecord>(KEY, { spec: { ...(await volumeOf(h)).spec, iops: 3000 }, generation: 3 });
    h.changes.splice(0);
    await h.clock.advance(10_000);
    await h.executor.run(h.batchOf(h.op('modify-volume', KEY)));
    const waiting = await volumeOf(h);
    expect(waiting).toMatchObject({
      modificationSentAt: sentAt,
      status: { state: 'available', code: 'ModificationUnconfirmed', message: 'looking whether the ModifyVolume whose answer was lost took', attempts: 1, nextAttemptAt: expect.any(String) },
    });
    expect(Date.parse(waiting.status.nextAttemptAt!)).toBeGreaterThan(h.clock.now());
    expect(waiting.observedGeneration).not.toBe(3);
    expect(h.ebs.calls.ModifyVolume).toBe(1);

    const volume = await expectHeldAt3000WithinAnHour(h);
    expect(volume.status.code).toBeUndefined();
  });

  it('is followed as the record\'s own when the spec still asks for it, with no second ModifyVolume', async () => {
    const h = await slowModifyingVolume();
    await sentUnrecorded(h, 'answer');
    for (let i = 0; i < 20; i++) {
      await h.watch();
      await h.settle(MINUTE, MINUTE);
    }
    const volume = await volumeOf(h);
    expect(volume).toMatchObject({ status: { state: 'available' }, observed: { iops: 4000 }, observedGeneration: 2 });
    expect(volume.modificationSentAt).toBeUndefined();
    expect(h.ebs.calls.ModifyVolume).toBe(1);
  });

  it('is looked for by the reconciler when its message is lost too', async () => {
    const h = await slowModifyingVolume();
    await sentUnrecorded(h, 'write');
    await clientWrites(h, { spec: { ...(await volumeOf(h)).spec, iops: 3000 }, generation: 3 });
    h.queue.receive(100).forEach((m) => h.queue.delete(m.receiptHandle));
    await h.clock.advance(10 * MINUTE);
    await reconcilerOf(h).run();
    expect(h.queued()).toHaveLength(1);
    await h.drain();
    // It looked: EC2 is still modifying toward 4000 IOPS, so it waits for that before modifying back.
    const volume = await volumeOf(h);
    expect(volume.status).toMatchObject({ state: 'available', code: 'IncorrectModificationState' });
    expect(volume.observedGeneration).not.toBe(3);
  });

  it('takes the claim with the write naming it: an ordinary modification writes twice, before and after its call, and the answer clears it', async () => {
    const h = await slowModifyingVolume();
    await clientWrites(h, { spec: { ...(await volumeOf(h)).spec, iops: 4000 }, generation: 2 });
    const writes = h.store.writes;
    await h.executor.run(h.batchOf(h.op('modify-volume', KEY)));
    expect(h.store.writes - writes).toBe(2);
    const volume = await volumeOf(h);
    expect(volume.status.state).toBe('modifying');
    expect(volume.modificationSentAt).toBeUndefined();
    expect(volume.claim).toBeUndefined();
  });
});

describe('a client change written while the chain\'s check of a modification is under way', () => {
  it('the check that sees the modification end goes on when its write meets the change, whose own message finds EC2 still at it', async () => {
    const h = await iopsModification({ modify: 10 * MINUTE, optimize: MINUTE }, { tags: { team: 'a' } });
    await h.clock.advance(9 * MINUTE);

    // The chain's check reads the record; before it describes, the client retags the volume, the
    // watcher's message for it finds EC2 still modifying, and EC2 then ends the modification.
    let meanwhile: Promise<void> | undefined;
    const clientWritesMeanwhile = () =>
      (meanwhile ??= (async () => {
        const volume = await volumeOf(h);
        await h.store.update<VolumeRecord>(KEY, { spec: { ...volume.spec, tags: { team: 'b' } }, generation: volume.generation + 1 });
        await h.watch();
        await h.drain();
        expect((await volumeOf(h)).status.state).toBe('modifying');
        await h.clock.advance(2 * MINUTE);
      })());
    const provider = providerOver(h.ebs, {
      describeVolumes: async (ids) => (await clientWritesMeanwhile(), h.ebs.describeVolumes(ids)),
      describeVolumeModifications: async (ids) => (await clientWritesMeanwhile(), h.ebs.describeVolumeModifications(ids)),
    });
    const chain = new Executor({ store: h.store, queue: h.queue, provider, clock: h.clock, metrics: h.metrics, log: silentLog });
    h.queue.purge();
    await chain.run(h.batchOf(h.op('check-volume', KEY)));
    expect(meanwhile).toBeDefined();

    // No reconciler: the chain alone brings the record to the end of the modification, then to its tags.
    await h.settle(15 * MINUTE, 5_000);
    await h.watch();
    await h.settle(MINUTE, 5_000);
    expect(await volumeOf(h)).toMatchObject({ status: { state: 'available' }, observed: { iops: 4000, tags: { team: 'b' } } });
  });
});

describe('a client change written after EC2 ended a modification, before its chain looked again', () => {
  it('the look for the change moves the record on to the next modification, whose chain is then the only one: the first chain\'s check only looks', async () => {
    const h = harness({ ebsTimings: { modify: 10 * MINUTE, optimize: 1000 } });
    await data1Created(h, 10_000);
    await h.store.update<VolumeRecord>(KEY, { spec: { ...(await volumeOf(h)).spec, iops: 4000 }, generation: 2 });
    await h.watch();
    await h.settle(20_000);
    await h.watch();
    const first = (await volumeOf(h)).status.operationStartedAt;
    expect(first).toBeDefined();
    // The chain's next check after EC2 ends the modification (at 10 minutes) is minutes away.
    await h.settle(10 * MINUTE + 20_000, 1000);
    expect((await volumeOf(h)).status.state).toBe('modifying');
    expect(h.queue.pending().map((pending) => pending.message)).toEqual([expect.objectContaining({ op: 'check-volume', chainOf: first })]);

    const volume = await volumeOf(h);
    await h.store.update<VolumeRecord>(KEY, { spec: { ...volume.spec, iops: 5000 }, generation: volume.generation + 1 });
    await h.watch();
    await h.settle(10_000, 1000);
    const secondStart = (await volumeOf(h)).status.operationStartedAt;
    expect(secondStart).not.toBe(first);
    expect(h.ebs.calls.ModifyVolume).toBe(2);

    // Second by second: the first chain's check arrives, only looks, and leaves the second's chain the only one.
    const ofFirst = () => h.queue.pending().filter((pending) => pending.message.chainOf === first).length;
    expect(ofFirst()).toBe(1);
    for (let second = 0; second < 10 * 60 && ofFirst() > 0; second++) await h.settle(1000, 1000);
    expect(ofFirst()).toBe(0);
    let most = 0;
    for (let second = 0; second < 20 * 60 && (await volumeOf(h)).status.state === 'modifying'; second++) {
      await h.settle(1000, 1000);
      const chains = h.queue.pending().filter((pending) => !pending.message.nudge);
      most = Math.max(most, chains.length);
      for (const chain of chains) expect(chain.message.chainOf).toBe(secondStart);
    }
    expect(most).toBe(1);
    await h.watch();
    expect(await volumeOf(h)).toMatchObject({ status: { state: 'available' }, observed: { iops: 5000 } });
  });
});

describe('a check of an earlier operation\'s chain that starts the next modification itself', () => {
  it('delivered again after its follow-up could not be sent, it is the new modification\'s first check', async () => {
    const h = harness({ ebsTimings: { modify: HOUR_MS, optimize: 1000 } });
    await data1Created(h, 10_000);
    // The client's change, which the chain's check (of an earlier operation, say) finds first.
    const volume = await volumeOf(h);
    await h.store.update<VolumeRecord>(KEY, { spec: { ...volume.spec, iops: 4000 }, generation: 2 });
    h.changes.splice(0);
    const check: OperationMessage = { ...h.op('check-volume', KEY), chainOf: '2025-12-31T23:00:00.000Z' };
    await h.queue.send([{ message: check, delaySeconds: 0 }]);
    const [received] = h.queue.receive(10);
    h.queue.failNextSend(new Error('SQS unavailable'));
    const { failedMessageIds } = await h.executor.run([{ messageId: received!.messageId, message: received!.message, receiveCount: received!.receiveCount }]);
    expect(failedMessageIds).toEqual([received!.messageId]);
    expect((await volumeOf(h)).status.state).toBe('modifying');
    expect(h.queue.pending()).toHaveLength(1);

    // SQS delivers it again after its visibility timeout (saying so): no reconciler, the modification is followed to its end.
    for (let spent = 0; spent < 3 * HOUR_MS && (await volumeOf(h)).status.state === 'modifying'; spent += 5_000) {
      await h.clock.advance(5_000);
      const batch = h.queue.receive(10);
      if (batch.length === 0) continue;
      const failed = new Set((await h.executor.run(batch.map((r) => ({ messageId: r.messageId, message: r.message, receiveCount: r.receiveCount })))).failedMessageIds);
      for (const r of batch) if (!failed.has(r.messageId)) h.queue.delete(r.receiptHandle);
    }
    expect(await volumeOf(h)).toMatchObject({ status: { state: 'available' }, observed: { iops: 4000 } });
    expect(h.ebs.calls.ModifyVolume).toBe(1);
  });
});

describe('a modification that takes hours, with the reconciler passing every 5 minutes', () => {
  /** data-1 available, then its IOPS raised: EC2 takes three hours over the modification. */
  const longModification = () => iopsModification({ modify: 3 * 60 * MINUTE, optimize: 1000 });

  const checksQueued = (h: Harness) => h.queued().filter((queued) => queued.key === 'data-1').length;

  it('its looks do not multiply the chain of progress checks: at most the chain and one look are queued at a time', async () => {
    const h = await longModification();
    const reconciler = reconcilerOf(h);
    let most = 0;
    let looks = 0;
    for (let minute = 0; minute < 120; minute++) {
      if (minute % 5 === 0) looks += (await reconciler.run()).requeued.length;
      await h.settle(MINUTE, 5_000);
      most = Math.max(most, checksQueued(h));
    }
    // The reconciler did look: the status stays quiet while EC2 is at it.
    expect(looks).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(2);
    expect((await volumeOf(h)).status.state).toBe('modifying');
  });

  /**
   * An hour of the modification (minute by minute, as `settle` delivers), with a client change of
   * the spec written at each of `changeAt` (minutes; the tags, then the IOPS), planned by the
   * watcher: the DescribeVolumes calls of the hour and the most messages queued for the record.
   */
  async function hourOfModification(changeAt: number[]): Promise<{ describes: number; mostQueued: number; h: Harness }> {
    const h = await longModification();
    const before = h.ebs.calls.DescribeVolumes;
    let mostQueued = 0;
    for (let minute = 0; minute < 60; minute++) {
      const change = changeAt.indexOf(minute);
      if (change >= 0) {
        const volume = await volumeOf(h);
        const spec = change % 2 === 0 ? { ...volume.spec, tags: { change: String(change) } } : { ...volume.spec, iops: 4000 + 100 * change };
        await h.store.update<VolumeRecord>(KEY, { spec, generation: volume.generation + 1 });
        await h.watch();
      }
      await h.settle(MINUTE, 5_000);
      await h.watch();
      mostQueued = Math.max(mostQueued, checksQueued(h));
    }
    return { describes: h.ebs.calls.DescribeVolumes - before, mostQueued, h };
  }

  it('client changes written during it do not multiply the chain of progress checks: one chain, and the describes of an hour with none', async () => {
    const quiet = await hourOfModification([]);
    const changed = await hourOfModification([3, 12, 25, 41]);
    expect(quiet.mostQueued).toBe(1);
    expect(changed.mostQueued).toBe(1);
    // Each change may cost a look of its own at most; never a chain of checks.
    expect(changed.describes).toBeLessThanOrEqual(quiet.describes + 4);
    expect(changed.h.ebs.calls.ModifyVolume).toBe(quiet.h.ebs.calls.ModifyVolume);
    expect((await volumeOf(changed.h)).status.state).toBe('modifying');
  });

  it("a failed grow's retry, come after a client's new spec has started the modification, only looks: one chain of checks", async () => {
    const h = harness({ ebsTimings: { modify: 3 * 60 * MINUTE, optimize: 1000 } });
    await data1Created(h, 10_000);
    h.ebs.failNext('ModifyVolume', new ProviderError('transient', 'InternalError', 'An internal error has occurred'), 6);
    await h.store.update<VolumeRecord>(KEY, { spec: { ...newVolume('data-1').spec, sizeGiB: 20 }, generation: 2 });
    for (let second = 0; second < 120 && (h.ebs.calls.ModifyVolume ?? 0) < 6; second++) {
      await h.watch();
      await h.settle(1000);
    }
    await h.watch();
    // Its next attempt is due after the first check of a modification started now.
    const { status } = await volumeOf(h);
    expect(Date.parse(status.nextAttemptAt!) - h.clock.now()).toBeGreaterThan(30_000);
    await h.store.update<VolumeRecord>(KEY, { spec: { ...newVolume('data-1').spec, sizeGiB: 30 }, generation: 3 });
    await h.watch();
    await h.settle(10 * MINUTE, 5_000);
    expect((await volumeOf(h)).status.state).toBe('modifying');
    expect(h.ebs.calls.ModifyVolume).toBe(7);
    expect(checksQueued(h)).toBe(1);
  });

  it("a client's modify message delivered late, after the modification another message started was checked, only looks: one chain of checks", async () => {
    const h = await longModification();
    const started = (await volumeOf(h)).status.operationStartedAt!;
    // Past the modification's first check (15 s): its chain has its next check queued.
    expect(h.clock.now() - Date.parse(started)).toBeGreaterThan(15_000);
    expect(h.queue.pending().map((pending) => pending.message)).toEqual([expect.objectContaining({ op: 'check-volume', chainOf: started })]);
    const describes = h.ebs.calls.DescribeVolumes ?? 0;
    await h.executor.run(h.batchOf(h.op('modify-volume', KEY)));
    expect(h.ebs.calls.DescribeVolumes).toBe(describes + 1);
    expect(h.queue.pending().map((pending) => pending.message)).toEqual([expect.objectContaining({ op: 'check-volume', chainOf: started })]);
    // Delivered again, it may be the message that started the modification and failed before sending its first check.
    h.queue.purge();
    await h.executor.run([{ messageId: 'again', message: h.op('modify-volume', KEY), receiveCount: 2 }]);
    expect(h.queue.pending().map((pending) => pending.message)).toEqual([expect.objectContaining({ op: 'check-volume', chainOf: started })]);
    expect(h.ebs.calls.ModifyVolume).toBe(1);
  });

  it('an attachment detached during it has the volume looked at, with no second chain of checks', async () => {
    const h = harness({ ebsTimings: { modify: 3 * 60 * MINUTE, optimize: 1000 } });
    await h.store.create(newVolume('data-1'));
    await h.store.create(newAttachment('data-1'));
    for (let round = 0; round < 3; round++) {
      await h.watch();
      await h.settle(30_000);
    }
    expect((await volumeOf(h)).status.state).toBe('in-use');
    await h.store.update<VolumeRecord>(KEY, { spec: { ...(await volumeOf(h)).spec, iops: 4000 }, generation: 2 });
    await h.watch();
    await h.settle(20_000);
    await h.watch();
    expect((await volumeOf(h)).status.state).toBe('modifying');

    // The volume's chain: the messages for it that are not looks.
    const chains = () => h.queue.pending().filter((pending) => pending.message.key.kind === 'volume' && !pending.message.nudge).length;
    await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { life: 'dying' });
    let most = 0;
    for (let minute = 0; minute < 60; minute++) {
      await h.watch();
      await h.settle(MINUTE, 5_000);
      most = Math.max(most, chains());
    }
    expect(await h.store.get(attachmentKey('data-1'))).toBeUndefined();
    expect(most).toBe(1);
    expect((await volumeOf(h)).status.state).toBe('modifying');
  });

  it('its checks carry its start; one of an earlier operation\'s chain only looks, unless delivered with one of its own or with a check of no chain', async () => {
    const h = await longModification();
    const started = (await volumeOf(h)).status.operationStartedAt!;
    expect(h.queue.pending().map((pending) => pending.message)).toEqual([expect.objectContaining({ op: 'check-volume', chainOf: started })]);
    const ofEarlier: OperationMessage = { ...h.op('check-volume', KEY), chainOf: '2025-12-31T23:00:00.000Z' };
    const own: OperationMessage = { ...h.op('check-volume', KEY), chainOf: started };
    h.queue.purge();
    await h.executor.run(h.batchOf(ofEarlier));
    expect(checksQueued(h)).toBe(0);
    // Delivered again, it may be the message whose handling started the operation and failed before sending its first check.
    const again = [{ messageId: 'again', message: ofEarlier, receiveCount: 2 }];
    for (const batch of [h.batchOf(own), h.batchOf(ofEarlier, own), h.batchOf(ofEarlier, h.op('check-volume', KEY)), h.batchOf(h.op('check-volume', KEY)), again]) {
      h.queue.purge();
      await h.executor.run(batch);
      expect(h.queue.pending().map((pending) => pending.message)).toEqual([expect.objectContaining({ op: 'check-volume', chainOf: started })]);
    }
  });

  it('a look delivered in one batch with the chain\'s own check keeps the chain going; a look alone adds none', async () => {
    const h = await longModification();
    const lost = () => h.queue.purge();
    const look: OperationMessage = { ...h.op('check-volume', KEY), nudge: true };
    lost();
    await h.executor.run(h.batchOf(look));
    expect(checksQueued(h)).toBe(0);
    for (const batch of [h.batchOf(look, h.op('check-volume', KEY)), h.batchOf(h.op('check-volume', KEY), look)]) {
      lost();
      await h.executor.run(batch);
      expect(h.queued()).toEqual([expect.objectContaining({ op: 'check-volume', key: 'data-1' })]);
    }
  });

  it('a look that finds the record held by another invocation comes back as a look', async () => {
    const h = await longModification();
    h.queue.purge();
    await h.store.claim(KEY, 'another-invocation', h.clock.now(), 60_000);
    await h.executor.run(h.batchOf({ ...h.op('check-volume', KEY), nudge: true }));
    expect(h.queue.pending().map((pending) => pending.message)).toEqual([expect.objectContaining({ op: 'check-volume', nudge: true })]);
  });

  it('with its chain of checks lost, the reconciler\'s looks still see it end', async () => {
    const h = await longModification();
    // Every queued message lost.
    h.queue.purge();
    const reconciler = reconcilerOf(h);
    for (let minute = 0; minute < 4 * 60 && (await volumeOf(h)).status.state === 'modifying'; minute++) {
      if (minute % 5 === 0) await reconciler.run();
      await h.settle(MINUTE, 5_000);
    }
    expect(await volumeOf(h)).toMatchObject({ status: { state: 'available' }, observed: { iops: 4000 }, observedGeneration: 2 });
  });
});
