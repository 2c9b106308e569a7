/** Wiring of the engine onto the in-memory store, queue and EBS model, for the engine tests. */
import type { SQSRecord } from 'aws-lambda';
import { expect } from 'vitest';
import { FakeClock } from '../../lib/memory/clock.js';
import { MemoryRecordStore } from '../../lib/memory/store.js';
import { MemoryOperationQueue } from '../../lib/memory/queue.js';
import { MemoryEbs, type StepDuration, type TimedStep } from '../../lib/memory/ebs.js';
import { RecordingMetrics } from '../../lib/memory/metrics.js';
import { silentLog } from '../../lib/memory/log.js';
import type { AttachmentRecord, VolumeRecord, VolumeSpec } from '../../lib/domain/records.js';
import { Executor } from '../../lib/engine/executor.js';
import { Watcher, type RecordChange } from '../../lib/engine/watcher.js';
import { DEFAULT_ENGINE_CONFIG, type EngineConfig } from '../../lib/engine/config.js';
import { alignedCheckAtMs } from '../../lib/engine/schedule.js';
import { ProviderError, type CreateVolumeRequest, type Log, type OperationKind, type OperationMessage, type ProviderVolume, type RecordKey, type RecordStore, type SharedRateBudget, type VolumeProvider } from '../../lib/engine/ports.js';

export const START = Date.parse('2026-01-01T00:00:00.000Z');
export const AZ = 'eu-west-1a';
export const INSTANCE = 'i-0123456789abcdef0';
export const OTHER_INSTANCE = 'i-0fedcba9876543210';

export function volumeKey(volumeId: string): RecordKey {
  return { kind: 'volume', volumeId };
}

export function attachmentKey(volumeId: string, instanceId = INSTANCE): RecordKey {
  return { kind: 'attachment', volumeId, instanceId };
}

export function newVolume(volumeId: string, extra: Partial<VolumeRecord> = {}, spec: Partial<VolumeSpec> = {}): VolumeRecord {
  return {
    kind: 'volume',
    volumeId,
    spec: { sizeGiB: 10, volumeType: 'gp3', availabilityZone: AZ, ...spec },
    life: 'alive',
    generation: 1,
    status: { state: 'pending', attempts: 0, updatedAt: new Date(START).toISOString() },
    version: 1,
    createdAt: new Date(START).toISOString(),
    ...extra,
  };
}

export function newAttachment(volumeId: string, extra: Partial<AttachmentRecord> = {}): AttachmentRecord {
  return {
    kind: 'attachment',
    volumeId,
    instanceId: INSTANCE,
    life: 'alive',
    status: { state: 'pending', attempts: 0, updatedAt: new Date(START).toISOString() },
    version: 1,
    createdAt: new Date(START).toISOString(),
    ...extra,
  };
}

/** EC2's request buckets (CreateVolume 100/5, DeleteVolume 100/5, mutating 50/5, CreateTags 100/10), for an executor that is the only environment. */
const SOLE_ENVIRONMENT_BUDGETS: EngineConfig['rateBudgets'] = {
  CreateVolume: { burst: 100, ratePerSecond: 5 },
  DeleteVolume: { burst: 100, ratePerSecond: 5 },
  AttachVolume: { burst: 50, ratePerSecond: 5 },
  CreateTags: { burst: 100, ratePerSecond: 10 },
};

/** EC2 as `ebs` answers it, except for the calls `overrides` answers. */
export function providerOver(ebs: VolumeProvider, overrides: Partial<VolumeProvider> = {}): VolumeProvider {
  return {
    createVolume: (request) => ebs.createVolume(request),
    describeVolumes: (ids) => ebs.describeVolumes(ids),
    describeVolumeModifications: (ids) => ebs.describeVolumeModifications(ids),
    describeInstances: (ids) => ebs.describeInstances(ids),
    attachVolume: (request) => ebs.attachVolume(request),
    detachVolume: (request) => ebs.detachVolume(request),
    deleteVolume: (ebsVolumeId) => ebs.deleteVolume(ebsVolumeId),
    modifyVolume: (request) => ebs.modifyVolume(request),
    createTags: (ebsVolumeId, tags) => ebs.createTags(ebsVolumeId, tags),
    deleteTags: (ebsVolumeId, keys) => ebs.deleteTags(ebsVolumeId, keys),
    listOwnedVolumes: (options) => ebs.listOwnedVolumes(options),
    findOwnedVolumes: (recordVolumeId) => ebs.findOwnedVolumes(recordVolumeId),
    ...overrides,
  };
}

export function harness(
  options: { config?: Partial<EngineConfig>; owner?: string; ebsTimings?: Partial<Record<TimedStep, StepDuration>>; rateBudget?: SharedRateBudget; log?: Log } = {},
) {
  const clock = new FakeClock(START);
  const store = new MemoryRecordStore();
  const queue = new MemoryOperationQueue({ clock });
  const ebs = new MemoryEbs({ clock, ownerTagValue: 'ebs-provisioner', ...(options.ebsTimings ? { timings: options.ebsTimings } : {}) });
  ebs.addInstance({ instanceId: INSTANCE, availabilityZone: AZ });
  ebs.addInstance({ instanceId: OTHER_INSTANCE, availabilityZone: AZ });
  const metrics = new RecordingMetrics();
  // EC2 as the executors reach it: the model, except for the CreateVolume answers `loseCreateAnswers` loses.
  let lostCreateAnswers = 0;
  /** Every CreateVolume request sent, in order. */
  const createRequests: CreateVolumeRequest[] = [];
  const provider = providerOver(ebs, {
    createVolume: async (request) => {
      createRequests.push(request);
      const volume = await ebs.createVolume(request);
      if (lostCreateAnswers > 0) {
        lostCreateAnswers--;
        throw new ProviderError('transient', 'RequestTimeout', 'CreateVolume timed out');
      }
      return volume;
    },
  });
  /** The next `times` CreateVolume calls make their volume in EC2, then time out: their answers are lost. */
  const loseCreateAnswers = (times = 1) => {
    lostCreateAnswers = times;
  };
  let owners = 0;
  // `drain` awaits each invocation without moving the clock, so by default invocations never sleep for a rate token.
  // One executor serves every invocation, as a deployment limited to one environment: it has EC2's whole budget.
  const config: Partial<EngineConfig> = { rateWaitMaxMs: 0, concurrentEnvironments: 1, rateBudgets: SOLE_ENVIRONMENT_BUDGETS, ...options.config };
  const deps = { store, queue, clock, metrics, log: options.log ?? silentLog, config, random: () => 0.5 };
  /** Another execution environment of the same deployment: its own executor (and rate share), the same store, queue, EC2 and shared budget. */
  const environment = () =>
    new Executor({ ...deps, provider, newOwnerId: () => options.owner ?? `owner-${++owners}`, ...(options.rateBudget ? { rateBudget: options.rateBudget } : {}) });
  const executor = environment();
  const watcher = new Watcher(deps);

  let messageIds = 0;
  const batchOf = (...messages: OperationMessage[]) => messages.map((message) => ({ messageId: `m${++messageIds}`, message }));
  const op = (kind: OperationKind, key: RecordKey): OperationMessage => ({ op: kind, key });

  /** Delivers every message that is due, the way the event source mapping does, until none is. */
  async function drain(maxRounds = 50): Promise<number> {
    let delivered = 0;
    for (let round = 0; round < maxRounds; round++) {
      const received = queue.receive(100);
      if (received.length === 0) return delivered;
      delivered += received.length;
      const { failedMessageIds } = await executor.run(received.map((r) => ({ messageId: r.messageId, message: r.message, receiveCount: r.receiveCount })));
      const failed = new Set(failedMessageIds);
      for (const r of received) if (!failed.has(r.messageId)) queue.delete(r.receiptHandle);
    }
    return delivered;
  }

  /** Advances the clock in steps, delivering what falls due, so asynchronous EBS work completes. */
  async function settle(totalMs: number, stepMs = 1000): Promise<void> {
    for (let spent = 0; spent < totalMs; spent += stepMs) {
      await drain();
      await clock.advance(stepMs);
    }
    await drain();
  }

  /** Feeds the store's own changes to the watcher, as the stream does. */
  const changes: RecordChange[] = [];
  store.onChange((change) => {
    changes.push({ id: `change-${change.sequenceNumber}`, eventName: change.eventName, key: change.key, oldRecord: change.oldRecord, newRecord: change.newRecord });
  });
  async function watch(): Promise<void> {
    while (changes.length > 0) await watcher.handle(changes.splice(0));
  }

  /** Messages waiting in the queue, with the delay left before each becomes visible. */
  function queued(): { op: OperationKind; key: string; delaySeconds: number }[] {
    return queue.pending().map((p) => ({
      op: p.message.op,
      key: p.message.key.kind === 'volume' ? p.message.key.volumeId : `${p.message.key.volumeId}/${p.message.key.instanceId}`,
      delaySeconds: Math.round((p.visibleAt - clock.now()) / 1000),
    }));
  }

  return { clock, store, queue, ebs, metrics, executor, environment, watcher, batchOf, op, drain, settle, watch, changes, queued, loseCreateAnswers, createRequests };
}

/** Rounds of the watcher's changes and 10 s of the executor's work, then the watcher once more: what is due by then has happened. */
export async function settleAll(h: ReturnType<typeof harness>, rounds = 6): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    await h.watch();
    await h.settle(10_000);
  }
  await h.watch();
}

/**
 * The watcher and the executor together for `seconds`, as the stream and the queue would run them:
 * rounds of the watcher's changes and 5 s of the executor's work (its clock moved `stepMs` at a
 * time), then the watcher once more.
 */
export async function runFor(h: ReturnType<typeof harness>, seconds: number, stepMs = 1000): Promise<void> {
  for (let i = 0; i < seconds / 5; i++) {
    await h.watch();
    await h.settle(5000, stepMs);
  }
  await h.watch();
}

/** data-1 asked for with an attachment to INSTANCE, its records watched and the clock settled 90 s: attached by then. */
export async function attachData1(h: ReturnType<typeof harness>): Promise<void> {
  await h.store.create(newVolume('data-1'));
  await h.store.create(newAttachment('data-1'));
  for (let i = 0; i < 3; i++) {
    await h.watch();
    await h.settle(30_000);
  }
  await h.watch();
}

/** Volumes data-1, data-2 and data-3 available, data-1 attached to INSTANCE: the instance described, two volumes left to attach to it. */
export async function threeVolumesDataOneAttached(h: ReturnType<typeof harness>): Promise<void> {
  for (const id of ['data-1', 'data-2', 'data-3']) await h.store.create(newVolume(id));
  await settleAll(h);
  await h.store.create(newAttachment('data-1'));
  await settleAll(h);
  expect((await h.store.get(attachmentKey('data-1')))!.status.state).toBe('attached');
}

/** data-1 creating, its CreateVolume made and its first check queued; the time of that check. */
export async function creatingData1(): Promise<{ h: ReturnType<typeof harness>; firstCheckAt: number }> {
  const h = harness();
  await h.store.create(newVolume('data-1'));
  await h.executor.run(h.batchOf(h.op('create-volume', volumeKey('data-1'))));
  const volume = await volumeOf(h);
  expect(volume.status.state).toBe('creating');
  const started = Date.parse(volume.status.operationStartedAt!);
  const firstCheckAt = alignedCheckAtMs('create-volume', started + DEFAULT_ENGINE_CONFIG.progressChecks['create-volume'].firstSeconds * 1000, DEFAULT_ENGINE_CONFIG);
  return { h, firstCheckAt };
}

/** EC2 as `h` models it, but CreateVolume, made, answers with nothing the executor can read: each attempt throws. */
export function answerOfNoShape(h: ReturnType<typeof harness>): VolumeProvider {
  return providerOver(h.ebs, {
    createVolume: async (request) => {
      await h.ebs.createVolume(request);
      return undefined as unknown as ProviderVolume;
    },
  });
}

/** data-1 attached to INSTANCE, then its volume record removed straight from the table and the removal watched. Returns the EC2 volume's id. */
export async function attachedWithVolumeRecordRemoved(h: ReturnType<typeof harness>): Promise<string> {
  await attachData1(h);
  expect(((await h.store.get(attachmentKey('data-1'))) as AttachmentRecord).status.state).toBe('attached');
  const ebsVolumeId = (await volumeOf(h)).ebsVolumeId!;
  await h.store.remove(volumeKey('data-1'));
  await h.watch();
  await h.drain();
  return ebsVolumeId;
}

/**
 * data-1 attached, then modifying for an hour (its IOPS raised) and asked to be deleted while busy on its
 * instance: the volume dying and still modifying, its attachment dying and detaching without end.
 */
export async function dyingWhileModifyingAndDetaching(): Promise<{ h: ReturnType<typeof harness>; ebsVolumeId: string }> {
  const MINUTE = 60_000;
  const h = harness({ ebsTimings: { modify: 60 * MINUTE, optimize: 60 * MINUTE } });
  await h.store.create(newVolume('data-1'));
  await h.store.create(newAttachment('data-1'));
  for (let i = 0; i < 4; i++) {
    await h.watch();
    await h.settle(30_000);
  }
  await h.watch();
  expect((await h.store.get(attachmentKey('data-1'))) as AttachmentRecord).toMatchObject({ status: { state: 'attached' } });
  const volume = await volumeOf(h);
  const ebsVolumeId = volume.ebsVolumeId!;
  await h.store.update<VolumeRecord>(volumeKey('data-1'), { spec: { ...volume.spec, iops: 4000 }, generation: volume.generation + 1 });
  await h.watch();
  await h.settle(10_000);
  await h.watch();
  expect((await volumeOf(h)).status.state).toBe('modifying');

  // The volume is busy on its instance: a plain detach does not end. Its client deletes it.
  h.ebs.keepBusy(ebsVolumeId, INSTANCE);
  await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'dying' });
  for (let i = 0; i < 3; i++) {
    await h.watch();
    await h.settle(10_000);
  }
  await h.watch();
  expect((await h.store.get(attachmentKey('data-1'))) as AttachmentRecord).toMatchObject({ life: 'dying', status: { state: 'detaching' } });
  expect((await volumeOf(h)).status.state).toBe('modifying');
  return { h, ebsVolumeId };
}

/** Volume record `volumeId` as the store holds it; fails the test when there is none. */
export async function volumeOf(h: ReturnType<typeof harness>, volumeId = 'data-1'): Promise<VolumeRecord> {
  const record = await h.store.get(volumeKey(volumeId));
  if (record?.kind !== 'volume') throw new Error(`no volume record ${volumeId}`);
  return record;
}

/** Attachment record of `volumeId` to `instanceId` as the store holds it; fails the test when there is none. */
export async function attachmentOf(h: ReturnType<typeof harness>, volumeId = 'data-1', instanceId = INSTANCE): Promise<AttachmentRecord> {
  const record = await h.store.get(attachmentKey(volumeId, instanceId));
  if (record?.kind !== 'attachment') throw new Error(`no attachment record ${volumeId}/${instanceId}`);
  return record;
}

/**
 * An executor of its own beside the harness's (EC2's default rate budgets, no wait for a rate
 * token) on its queue, clock and metrics, over `provider` (the EBS model by default), `store` (the
 * harness's by default) and `log` (silent by default).
 */
export function executorOver(h: ReturnType<typeof harness>, options: { provider?: VolumeProvider; store?: RecordStore; log?: Log } = {}): Executor {
  return new Executor({
    store: options.store ?? h.store,
    queue: h.queue,
    provider: options.provider ?? h.ebs,
    clock: h.clock,
    metrics: h.metrics,
    log: options.log ?? silentLog,
    config: { rateWaitMaxMs: 0 },
  });
}

/**
 * data-1 (the fixtures' spec) created through the watcher and the executor, given `settleMs` of
 * EBS time, the watcher having read every change it made.
 */
export async function data1Created(h: ReturnType<typeof harness>, settleMs = 30_000): Promise<void> {
  await h.store.create(newVolume('data-1'));
  await h.watch();
  await h.settle(settleMs);
  await h.watch();
}

/** data-1, available, attached to INSTANCE as /dev/sdz in the console (outside the system); a check writes it in use. */
export async function data1AttachedInConsole(h: ReturnType<typeof harness>): Promise<void> {
  const { ebsVolumeId } = await volumeOf(h);
  await h.ebs.attachVolume({ ebsVolumeId: ebsVolumeId!, instanceId: INSTANCE, device: '/dev/sdz' });
  await h.clock.advance(10_000);
  await h.executor.run(h.batchOf(h.op('check-volume', volumeKey('data-1'))));
  expect((await volumeOf(h)).status.state).toBe('in-use');
}

/**
 * Volume data-1 (10 GiB gp3 in the fixtures' AZ, with `tags`) created through the watcher and the
 * executor on an EBS model whose modifications take a second (or on `ebsTimings`), available.
 */
export async function availableVolume(
  tags: Record<string, string>,
  ebsTimings: Partial<Record<TimedStep, StepDuration>> = { modify: 1000, optimize: 1000 },
): Promise<ReturnType<typeof harness>> {
  const h = harness({ ebsTimings });
  await h.store.create(newVolume('data-1', {}, { tags }));
  await h.watch();
  await h.settle(10_000);
  await h.watch();
  expect((await volumeOf(h)).status.state).toBe('available');
  return h;
}

/** data-1 (with `spec`) available, then its IOPS raised to 4000: EC2 modifying it for as long as `timings` say. */
export async function iopsModification(timings: { modify: number; optimize: number }, spec: Partial<VolumeSpec> = {}): Promise<ReturnType<typeof harness>> {
  const h = harness({ ebsTimings: timings });
  await h.store.create(newVolume('data-1', {}, spec));
  await h.watch();
  await h.settle(10_000);
  await h.watch();
  const volume = await volumeOf(h);
  await h.store.update<VolumeRecord>(volumeKey('data-1'), { spec: { ...volume.spec, iops: 4000 }, generation: 2 });
  await h.watch();
  await h.settle(20_000);
  await h.watch();
  expect((await volumeOf(h)).status.state).toBe('modifying');
  return h;
}

/** An executor whose CreateVolume reaches EC2 but whose status write after it fails (DynamoDB unavailable just then): the answer is lost. */
export function executorLosingWriteAfterCreate(h: ReturnType<typeof harness>): Executor {
  const provider: VolumeProvider = Object.create(h.ebs);
  provider.createVolume = async (request) => {
    const volume = await h.ebs.createVolume(request);
    h.store.failNext('update', new Error('DynamoDB unavailable'));
    return volume;
  };
  return new Executor({ store: h.store, queue: h.queue, provider, clock: h.clock, metrics: h.metrics, log: silentLog });
}

/** An SQS message as Lambda hands it to the executor function, on its `receiveCount`th delivery. */
export function sqsRecord(messageId: string, body: string, receiveCount = 1): SQSRecord {
  return {
    messageId,
    receiptHandle: `r-${messageId}`,
    body,
    attributes: { ApproximateReceiveCount: String(receiveCount), SentTimestamp: '0', SenderId: 'local', ApproximateFirstReceiveTimestamp: '0' },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:operations',
    awsRegion: 'us-east-1',
  };
}
