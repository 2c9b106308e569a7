/**
 * Random histories: clients create, grow, retag, attach, detach and delete volumes through the
 * API service while EC2, DynamoDB and SQS fail at random, messages and stream batches arrive
 * twice, invocations crash after their calls, two executor environments work side by side, and
 * now and then someone changes a volume in the console or removes a volume record from the table.
 * Once faults and requests stop and the system settles, every record must say what EC2 holds.
 * Each seed is one reproducible history; `HISTORY_SEEDS=3000 npx vitest run <this file>` searches
 * further than the 40 run by default, and `HISTORY_FIRST_SEED=20677 HISTORY_SEEDS=1` runs that one
 * seed alone.
 */
import { describe, expect, it } from 'vitest';
import { Random } from '../../bench/sim/random.js';
import { ApiProblem } from '../../lib/api/problem.js';
import { CreateVolumeRequestSchema, PatchVolumeRequestSchema, PutAttachmentRequestSchema } from '../../lib/api/schemas.js';
import { VolumeService } from '../../lib/api/service.js';
import { provisionedPerformance } from '../../lib/domain/ebs-limits.js';
import type { AttachmentRecord, VolumeRecord } from '../../lib/domain/records.js';
import type { Executor } from '../../lib/engine/executor.js';
import { volumeRecordLost } from '../../lib/engine/planner.js';
import { ProviderError } from '../../lib/engine/ports.js';
import { MODIFICATION_COOLDOWN_CODE, SPEC_REJECTED_CODE, VOLUME_RECORD_REMOVED_CODE } from '../../lib/engine/status.js';
import { Reconciler } from '../../lib/engine/reconciler.js';
import type { RecordChange } from '../../lib/engine/watcher.js';
import type { Ec2Action } from '../../lib/memory/ebs.js';
import { silentLog } from '../../lib/memory/index.js';
import { OWNERSHIP_TAGS } from '../../lib/settings.js';
import { AZ, INSTANCE, OTHER_INSTANCE, harness } from './engine-fixtures.js';

const FIRST_SEED = Number(process.env.HISTORY_FIRST_SEED ?? 1);
const SEEDS = Array.from({ length: Number(process.env.HISTORY_SEEDS ?? 40) }, (_, i) => i + FIRST_SEED);
const VOLUME_IDS = ['v-a', 'v-b', 'v-c', 'v-d'];
const INSTANCES = [INSTANCE, OTHER_INSTANCE];
const FAULTY_ACTIONS: Ec2Action[] = ['CreateVolume', 'AttachVolume', 'DetachVolume', 'DeleteVolume', 'ModifyVolume', 'DescribeVolumes', 'CreateTags', 'DeleteTags'];
/** Calls whose answer may be lost after EC2 made them (a timeout). */
const ANSWER_LOST_ACTIONS = ['AttachVolume', 'DetachVolume', 'DeleteVolume', 'ModifyVolume', 'CreateTags', 'DeleteTags'] as const;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const STORE_FAILURE = 'DynamoDB unavailable';
/** The values clients ask for (`t1`…`t3`); the console writes others. */
const SYSTEM_SET_TAG_VALUE = /^t[0-9]$/;

/**
 * Whether the API's refusal is one the history can bring about: a record missing (404) or in a
 * state that stands in the way (409), or, for the `invalidPaths` a request names, a change EBS
 * cannot make of a volume as it is now (grown in the console, or multi-attach kept on gp3). Any
 * other refusal is a valid request wrongly refused.
 */
function expectedRefusal(problem: ApiProblem, invalidPaths: readonly string[] = []): boolean {
  if (problem.kind === 'not-found' || problem.kind === 'conflict') return true;
  return problem.kind === 'validation-failed' && problem.errors.length > 0 && problem.errors.every((issue) => invalidPaths.includes(issue.path));
}

/** The bench's seeded generator, so each seed replays the same history. */
function randomSource(seed: number) {
  const random = new Random(seed);
  const next = () => random.next();
  return {
    chance: (p: number) => next() < p,
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!,
    between: (low: number, high: number) => low + Math.floor(next() * (high - low + 1)),
  };
}

function world(seed: number) {
  const random = randomSource(seed);
  // Every third history gives up after two attempts, so records end in error often and what they say then is tested too.
  const h = harness({ ebsTimings: { modify: 20_000, optimize: 20_000 }, ...(seed % 3 === 0 ? { config: { maxAttempts: 2 } } : {}) });
  const environments: Executor[] = [h.executor, h.environment()];
  const service = new VolumeService({ store: h.store, clock: h.clock });
  const reconciler = new Reconciler({ store: h.store, queue: h.queue, provider: h.ebs, clock: h.clock, metrics: h.metrics, log: silentLog });
  let faults = true;
  let lastBatch: RecordChange[] = [];
  let nextReconcileAt = h.clock.now() + 5 * MINUTE;

  /**
   * One client request; the refusals the history can bring about (404, 409, a change EBS cannot make
   * now) and 500 when the table fails under it are part of it, any other refusal fails the test.
   */
  async function request(): Promise<void> {
    const volumeId = random.pick(VOLUME_IDS);
    const instanceId = random.pick(INSTANCES);
    /** What a request may be refused for beyond 404 and 409, by field. */
    let invalidPaths: string[] = [];
    try {
      switch (random.between(0, 8)) {
        case 0:
        case 1: {
          const multiAttach = random.chance(0.25);
          const spec = multiAttach
            ? { sizeGiB: random.between(10, 12), volumeType: 'io2', iops: 1000, multiAttach: true, availabilityZone: AZ }
            : { sizeGiB: random.between(10, 12), volumeType: 'gp3', availabilityZone: AZ };
          await service.createVolume(CreateVolumeRequestSchema.parse({ volumeId, spec, ...(random.chance(0.5) ? { attachTo: { instanceId } } : {}) }));
          return;
        }
        case 2: {
          // Grown in the console past what this asks, the volume cannot shrink back.
          invalidPaths = ['sizeGiB'];
          const { spec } = await service.getVolume(volumeId);
          await service.patchVolume(volumeId, PatchVolumeRequestSchema.parse({ sizeGiB: spec.sizeGiB + random.between(1, 3) }));
          return;
        }
        case 3:
          await service.patchVolume(volumeId, PatchVolumeRequestSchema.parse({ tags: random.chance(0.7) ? { team: `t${random.between(1, 3)}` } : {} }));
          return;
        case 4:
          await service.putAttachment(volumeId, instanceId, PutAttachmentRequestSchema.parse({}));
          return;
        case 5:
          await service.deleteAttachment(volumeId, instanceId);
          return;
        case 6:
          await service.deleteVolume(volumeId);
          return;
        case 7:
          if (random.chance(0.5)) await service.retryVolume(volumeId);
          else await service.retryAttachment(volumeId, instanceId);
          return;
        case 8:
          // Performance or type: some of these EBS cannot make (io2 to gp3 keeps multi-attach), refused with the reason.
          invalidPaths = ['multiAttach', 'sizeGiB'];
          await service.patchVolume(
            volumeId,
            PatchVolumeRequestSchema.parse(random.chance(0.5) ? { iops: random.pick([3000, 4000, 5000]) } : { volumeType: random.pick(['gp3', 'io2']), iops: 3000 }),
          );
          return;
      }
    } catch (error) {
      if (error instanceof ApiProblem && expectedRefusal(error, invalidPaths)) return;
      if (!(error instanceof Error && error.message === STORE_FAILURE)) throw error;
    }
  }

  // EC2 answers lost after the call took effect: the next `lostAnswers[action]` calls.
  const lostAnswers = new Map<Ec2Action, number>();
  for (const action of ANSWER_LOST_ACTIONS) {
    const name = (action.charAt(0).toLowerCase() + action.slice(1)) as 'attachVolume' | 'detachVolume' | 'deleteVolume' | 'modifyVolume' | 'createTags' | 'deleteTags';
    const made = (h.ebs[name] as (...args: unknown[]) => Promise<void>).bind(h.ebs);
    (h.ebs as unknown as Record<string, unknown>)[name] = async (...args: unknown[]) => {
      await made(...args);
      const lost = lostAnswers.get(action) ?? 0;
      if (lost > 0) {
        lostAnswers.set(action, lost - 1);
        throw new ProviderError('transient', 'RequestTimeout', `${action} timed out`);
      }
    };
  }

  /** Ids of volume records removed straight from the table (their EC2 volumes are left behind, as documented). */
  const removed = new Set<string>();
  async function removeFromTable(): Promise<void> {
    const volume = random.pick(h.store.all().filter((r): r is VolumeRecord => r.kind === 'volume'));
    if (!volume) return;
    try {
      await h.store.remove({ kind: 'volume', volumeId: volume.volumeId });
    } catch {
      return;
    }
    removed.add(volume.volumeId);
  }

  /** Volumes someone detached in the console and attaches again, under another device name, once `atMs` comes. */
  const reattaches: { ebsVolumeId: string; instanceId: string; atMs: number }[] = [];

  /**
   * Someone in the console: detaches an attached volume (now and then attaching it again a little
   * later under another name), deletes a detached one, changes its tags or its IOPS, or grows it.
   */
  async function actOutside(): Promise<void> {
    const volume = random.pick(h.ebs.volumes().filter((v) => v.state === 'available' || v.state === 'in-use'));
    if (!volume) return;
    const attachment = volume.attachments.find((a) => a.state === 'attached');
    switch (random.between(0, 4)) {
      case 0:
        if (!attachment) return;
        // Faults meant for the system may hit the console's call too.
        await h.ebs.detachVolume({ ebsVolumeId: volume.ebsVolumeId, instanceId: attachment.instanceId }).catch(() => undefined);
        if (random.chance(0.5)) reattaches.push({ ebsVolumeId: volume.ebsVolumeId, instanceId: attachment.instanceId, atMs: h.clock.now() + random.between(1_000, 30_000) });
        return;
      case 1:
        if (volume.attachments.length === 0) h.ebs.deleteBehindBack(volume.ebsVolumeId);
        return;
      case 2:
        h.ebs.retagBehindBack(volume.ebsVolumeId, random.chance(0.5) ? { ...volume.tags, team: 'console' } : { ...ownershipTags(volume.tags), other: 'kept' });
        return;
      case 3:
        // EC2 may refuse it (a modification under way, its 4 in 24 hours made, a fault meant for the system).
        await h.ebs.modifyVolume({ ebsVolumeId: volume.ebsVolumeId, iops: random.pick([3000, 4000, 5000]) }).catch(() => undefined);
        return;
      case 4:
        await h.ebs.modifyVolume({ ebsVolumeId: volume.ebsVolumeId, sizeGiB: volume.sizeGiB + random.between(1, 5) }).catch(() => undefined);
        return;
    }
  }

  function injectFault(): void {
    const transient = new ProviderError('transient', 'InternalError', 'EC2 had an internal error');
    switch (random.between(0, 5)) {
      case 5:
        lostAnswers.set(random.pick(ANSWER_LOST_ACTIONS), 1);
        return;
      case 0:
        h.ebs.failNext(random.pick(FAULTY_ACTIONS), transient);
        return;
      case 1:
        h.ebs.failNext(random.pick(FAULTY_ACTIONS), new ProviderError('throttled', 'RequestLimitExceeded', 'Request limit exceeded.'));
        return;
      case 2:
        h.store.failNext(random.pick(['update', 'claim', 'get', 'getMany', 'remove', 'release'] as const), new Error(STORE_FAILURE));
        return;
      case 3:
        h.loseCreateAnswers(1);
        return;
      case 4:
        h.queue.failNextSend(new Error('SQS unavailable'));
        return;
    }
  }

  /** The stream: changes in order, a failed batch delivered again from its first failure, a batch sometimes delivered twice. */
  async function deliverChanges(): Promise<void> {
    let batch = h.changes.splice(0);
    if (faults && lastBatch.length > 0 && random.chance(0.1)) batch = [...lastBatch, ...batch];
    while (batch.length > 0) {
      let failedIds: string[];
      try {
        ({ failedChangeIds: failedIds } = await h.watcher.handle(batch));
      } catch {
        failedIds = [batch[0]!.id];
      }
      lastBatch = batch;
      const firstFailed = batch.findIndex((change) => failedIds.includes(change.id));
      batch = firstFailed < 0 ? [] : batch.slice(firstFailed);
      if (batch.length > 0 && !faults) continue;
      if (batch.length > 0) {
        h.changes.unshift(...batch);
        return;
      }
    }
  }

  /** One invocation of an executor environment: a crash now and then after its calls (nothing deleted, all comes back). */
  async function invoke(executor: Executor, received: ReturnType<typeof h.queue.receive>): Promise<void> {
    if (faults && random.chance(0.05)) {
      const copy = random.pick(received);
      await h.queue.send([{ message: copy.message, delaySeconds: 0 }]).catch(() => undefined);
    }
    const crashes = faults && random.chance(0.05);
    const { failedMessageIds } = await executor.run(received.map((r) => ({ messageId: r.messageId, message: r.message })));
    if (crashes) return;
    const failed = new Set(failedMessageIds);
    for (const r of received) if (!failed.has(r.messageId)) h.queue.delete(r.receiptHandle);
  }

  /** The queue's event source mapping: random batch sizes, the two environments often at once. */
  async function deliverMessages(): Promise<void> {
    for (let round = 0; round < 20; round++) {
      const first = h.queue.receive(random.between(1, 10));
      if (first.length === 0) return;
      const second = random.chance(0.5) ? h.queue.receive(random.between(1, 10)) : [];
      await Promise.all([invoke(environments[0]!, first), second.length > 0 ? invoke(environments[1]!, second) : undefined]);
    }
  }

  async function reconcileWhenDue(): Promise<void> {
    if (h.clock.now() < nextReconcileAt) return;
    nextReconcileAt = h.clock.now() + 5 * MINUTE;
    // A failed pass (an injected fault) is the next pass's to make up.
    await reconciler.run().catch(() => undefined);
  }

  /** The console's attaches that are due, while the volume's attachment there is still asked for (EC2 may refuse them: the system was quicker). */
  async function reattachWhenDue(): Promise<void> {
    for (const due of reattaches.filter((r) => r.atMs <= h.clock.now())) {
      reattaches.splice(reattaches.indexOf(due), 1);
      const volume = h.store.all().find((r): r is VolumeRecord => r.kind === 'volume' && r.ebsVolumeId === due.ebsVolumeId);
      const wanted = h.store.all().some((r) => r.kind === 'attachment' && r.volumeId === volume?.volumeId && r.instanceId === due.instanceId && r.life === 'alive');
      if (wanted) await h.ebs.attachVolume({ ebsVolumeId: due.ebsVolumeId, instanceId: due.instanceId, device: '/dev/sdz' }).catch(() => undefined);
    }
  }

  async function step(ms: number): Promise<void> {
    await reattachWhenDue();
    // The stream's, the queue's and the schedule's functions run side by side.
    await Promise.all([deliverChanges(), deliverMessages(), reconcileWhenDue()]);
    await h.clock.advance(ms);
  }

  async function history(requests: number): Promise<void> {
    for (let i = 0; i < requests; i++) {
      await request();
      for (let s = random.between(0, 6); s > 0; s--) {
        if (random.chance(0.25)) injectFault();
        if (random.chance(0.02)) await actOutside();
        if (random.chance(0.01)) await removeFromTable();
        await step(random.between(200, 3000));
      }
    }
  }

  async function settle(totalMs: number, stepMs: number): Promise<void> {
    // Nothing fails any more: faults injected during the history that have not struck yet are let go.
    faults = false;
    h.ebs.clearFaults();
    h.store.clearFaults();
    h.queue.clearFaults();
    h.loseCreateAnswers(0);
    lostAnswers.clear();
    for (let spent = 0; spent < totalMs; spent += stepMs) await step(stepMs);
  }

  /** A client's request after the history: again after a 500 (a fault injected earlier may still be pending); a 404 or 409 ends it. */
  async function ask(request: () => Promise<unknown>): Promise<void> {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        await request();
        return;
      } catch (error) {
        if (error instanceof ApiProblem && expectedRefusal(error)) return;
        if (!(error instanceof Error && error.message === STORE_FAILURE)) throw error;
      }
    }
  }

  /**
   * Each record in error is retried, as a client would, and a spec that its status says can no
   * longer be met (the volume grown in the console) asks for the size EC2 holds.
   */
  async function retryErrors(): Promise<void> {
    for (const record of h.store.all()) {
      if (record.kind === 'volume' && record.status.code === SPEC_REJECTED_CODE && record.observed && record.observed.sizeGiB > record.spec.sizeGiB) {
        const sizeGiB = record.observed.sizeGiB;
        await ask(() => service.patchVolume(record.volumeId, PatchVolumeRequestSchema.parse({ sizeGiB })));
      }
      if (record.status.state !== 'error' || record.life !== 'alive') continue;
      await ask(() => (record.kind === 'volume' ? service.retryVolume(record.volumeId) : service.retryAttachment(record.volumeId, record.instanceId)));
    }
  }

  /**
   * The attachments whose volume record is gone, or that say it was removed (it may have been written
   * again since), are deleted, as their status asks: each detaches what it may hold.
   */
  async function deleteAttachmentsOfRemovedRecords(): Promise<void> {
    const volumeIds = new Set(h.store.all().flatMap((r) => (r.kind === 'volume' ? [r.volumeId] : [])));
    for (const record of h.store.all()) {
      if (record.kind === 'attachment' && (!volumeIds.has(record.volumeId) || record.status.code === VOLUME_RECORD_REMOVED_CODE))
        await ask(() => service.deleteAttachment(record.volumeId, record.instanceId));
    }
  }

  return { h, history, settle, retryErrors, deleteAttachmentsOfRemovedRecords, removed };
}

function ownershipTags(tags: Record<string, string>): Record<string, string> {
  const ownership: string[] = Object.values(OWNERSHIP_TAGS);
  return Object.fromEntries(Object.entries(tags).filter(([key]) => ownership.includes(key)));
}

/** What must hold once nothing is asked and nothing fails any more. */
function inconsistencies(h: ReturnType<typeof harness>, removed: Set<string>): string[] {
  const problems: string[] = [];
  const records = h.store.all();
  const volumes = records.filter((r): r is VolumeRecord => r.kind === 'volume');
  const attachments = records.filter((r): r is AttachmentRecord => r.kind === 'attachment');
  const ec2 = h.ebs.volumes().filter((v) => v.state !== 'deleted');

  for (const record of records) {
    if (record.life === 'dying') problems.push(`${record.kind} ${record.volumeId} still dying in ${record.status.state}`);
    if (record.claim && record.claim.expiresAt > h.clock.now()) problems.push(`${record.kind} ${record.volumeId} still claimed`);
  }
  for (const volume of volumes) {
    const state = volume.status.state;
    if (state !== 'available' && state !== 'in-use') problems.push(`volume ${volume.volumeId} in ${state}: ${volume.status.message ?? ''}`);
    if (volume.observedGeneration !== volume.generation) problems.push(`volume ${volume.volumeId} at generation ${volume.observedGeneration} of ${volume.generation}`);
    const found = ec2.filter((v) => v.tags[OWNERSHIP_TAGS.record] === volume.volumeId);
    // A record removed from the table leaves its volume behind (documented): one written again under its id has a second.
    if (found.length !== 1 && !(removed.has(volume.volumeId) && found.length > 1)) problems.push(`volume ${volume.volumeId}: ${found.length} EC2 volumes`);
    const mine = ec2.find((v) => v.ebsVolumeId === volume.ebsVolumeId);
    if (!mine) {
      problems.push(`volume ${volume.volumeId}: its EC2 volume ${volume.ebsVolumeId} is gone`);
      continue;
    }
    if (mine.sizeGiB !== volume.spec.sizeGiB) problems.push(`volume ${volume.volumeId}: ${mine.sizeGiB} GiB in EC2, ${volume.spec.sizeGiB} asked`);
    if (mine.volumeType !== volume.spec.volumeType) problems.push(`volume ${volume.volumeId}: ${mine.volumeType} in EC2, ${volume.spec.volumeType} asked`);
    const [held, asked] = [provisionedPerformance(mine), provisionedPerformance(volume.spec)];
    if (JSON.stringify(held) !== JSON.stringify(asked)) problems.push(`volume ${volume.volumeId}: ${JSON.stringify(held)} in EC2, ${JSON.stringify(asked)} asked`);
    // The spec's tags are in EC2; a tag the system set and the spec no longer names is not (tags set in the console are left alone).
    for (const [key, value] of Object.entries(volume.spec.tags ?? {})) {
      if (mine.tags[key] !== value) problems.push(`volume ${volume.volumeId}: tag ${key}=${mine.tags[key]} in EC2, ${value} asked`);
    }
    for (const [key, value] of Object.entries(mine.tags)) {
      if (!(key in (volume.spec.tags ?? {})) && SYSTEM_SET_TAG_VALUE.test(value)) problems.push(`volume ${volume.volumeId}: tag ${key}=${value} left in EC2`);
    }
    const inUse = mine.attachments.length > 0;
    if ((state === 'in-use') !== inUse) problems.push(`volume ${volume.volumeId} ${state} with ${mine.attachments.length} EC2 attachments`);
  }
  for (const v of ec2) {
    const owned = volumes.some((r) => r.ebsVolumeId === v.ebsVolumeId);
    const recordId = v.tags[OWNERSHIP_TAGS.record] ?? '';
    // A volume whose record was removed from the table is left in EC2 (documented), attached where it was while an attachment of that id is there.
    if (!owned && !removed.has(recordId)) problems.push(`EC2 volume ${v.ebsVolumeId} (${recordId}) owned by no record`);
    for (const a of v.attachments) {
      const record = owned
        ? attachments.find((r) => r.instanceId === a.instanceId && volumes.some((vr) => vr.volumeId === r.volumeId && vr.ebsVolumeId === v.ebsVolumeId))
        : attachments.find((r) => r.instanceId === a.instanceId && r.volumeId === recordId && r.life === 'alive');
      if (!record) problems.push(`EC2 volume ${v.ebsVolumeId}${owned ? '' : ' (record removed)'} attached to ${a.instanceId} with no attachment record`);
    }
  }
  for (const attachment of attachments) {
    const where = `attachment ${attachment.volumeId}/${attachment.instanceId}`;
    // Its volume record removed from the table: it says so (or waits for the record), nothing more to hold it to.
    if (!volumes.some((v) => v.volumeId === attachment.volumeId)) {
      if (attachment.status.state === 'attached' || attachment.status.state === 'attaching') problems.push(`${where} ${attachment.status.state} without a volume record`);
      continue;
    }
    const volume = volumes.find((v) => v.volumeId === attachment.volumeId);
    // A volume without multi-attach goes to one instance at a time: a second attachment waits (by design).
    if (attachment.status.state === 'pending' && !volume?.spec.multiAttach && attachments.some((a) => a !== attachment && a.volumeId === attachment.volumeId && a.status.state === 'attached')) continue;
    if (attachment.status.state !== 'attached') problems.push(`${where} in ${attachment.status.state}: ${attachment.status.message ?? ''}`);
    const inEc2 = ec2.find((v) => v.ebsVolumeId === volume?.ebsVolumeId)?.attachments.find((a) => a.instanceId === attachment.instanceId);
    if (!inEc2) problems.push(`${where}: not attached in EC2`);
    else if (inEc2.device !== attachment.device) problems.push(`${where}: device ${attachment.device} recorded, ${inEc2.device} in EC2`);
  }
  if (h.queue.deadLetters().length > 0) problems.push(`${h.queue.deadLetters().length} dead letters`);
  return problems;
}

/** Records left in error before any retry: each must still say what EC2 holds. */
function errorsThatMisstate(h: ReturnType<typeof harness>): string[] {
  const problems: string[] = [];
  const records = h.store.all();
  for (const attachment of records) {
    if (attachment.kind !== 'attachment' || attachment.status.state !== 'error' || attachment.life !== 'alive') continue;
    const volume = records.find((r): r is VolumeRecord => r.kind === 'volume' && r.volumeId === attachment.volumeId);
    if (!volume?.ebsVolumeId) continue;
    if (volumeRecordLost(attachment, volume)) continue; // it says so, and keeps its device for the removed record's volume
    const where = `attachment ${attachment.volumeId}/${attachment.instanceId}`;
    const link = h.ebs.volumes().find((v) => v.ebsVolumeId === volume.ebsVolumeId)?.attachments.find((a) => a.instanceId === attachment.instanceId);
    if (link) problems.push(`${where} in error while EC2 holds it attached as ${link.device}: ${attachment.status.message ?? ''}`);
    else if (attachment.device !== undefined) problems.push(`${where} in error keeps device ${attachment.device}, though nothing is attached`);
  }
  return problems;
}

/** What one seed's history ends with: the problems found after the first settle and at the end, and the EC2 calls made, by action. */
interface HistoryOutcome {
  misstated: string[];
  inconsistent: string[];
  calls: Record<Ec2Action, number>;
}

async function runHistory(seed: number): Promise<HistoryOutcome> {
  const { h, history, settle, retryErrors, deleteAttachmentsOfRemovedRecords, removed } = world(seed);
  await history(40);
  await settle(7 * HOUR, 30_000);
  const misstated = errorsThatMisstate(h);
  // A retry can end in error again with a reason of its own (it found the volume deleted outside, say): the client retries that too.
  for (let round = 0; round < 3; round++) {
    await retryErrors();
    await settle(HOUR, 5_000);
  }
  await deleteAttachmentsOfRemovedRecords();
  await settle(HOUR, 5_000);
  // A spec change EC2's limit holds back (4 modifications in any 24 hours) is made when its status says.
  const rateWaitEnd = Math.max(0, ...h.store.all().flatMap((r) => (r.status.code === MODIFICATION_COOLDOWN_CODE && r.status.nextAttemptAt ? [Date.parse(r.status.nextAttemptAt)] : [])));
  if (rateWaitEnd > h.clock.now()) await settle(rateWaitEnd - h.clock.now() + 10 * MINUTE, MINUTE);
  return { misstated, inconsistent: inconsistencies(h, removed), calls: { ...h.ebs.calls } };
}

describe('random histories with faults, duplicates and crashes', () => {
  /** Each seed's history runs once, whichever test asks for it first. */
  const outcomes = new Map<number, Promise<HistoryOutcome>>();
  const outcomeOf = (seed: number) => {
    let outcome = outcomes.get(seed);
    if (!outcome) outcomes.set(seed, (outcome = runHistory(seed)));
    return outcome;
  };

  it.each(SEEDS)('seed %i: every record ends as EC2 holds it, nothing leaked or duplicated', async (seed) => {
    const { misstated, inconsistent } = await outcomeOf(seed);
    expect(misstated).toEqual([]);
    expect(inconsistent).toEqual([]);
  });

  // Run on its own, it runs every history itself: hence the longer timeout.
  it.runIf(SEEDS.length >= 40)('the histories make every kind of EC2 change', { timeout: 600_000 }, async () => {
    const calls = new Map<string, number>();
    for (const seed of SEEDS) {
      for (const [action, count] of Object.entries((await outcomeOf(seed)).calls)) calls.set(action, (calls.get(action) ?? 0) + count);
    }
    for (const action of ['CreateVolume', 'AttachVolume', 'DetachVolume', 'DeleteVolume', 'ModifyVolume', 'CreateTags', 'DeleteTags']) {
      expect(calls.get(action), action).toBeGreaterThan(0);
    }
  });
});
