/**
 * The executor: carries out a batch of operation messages against EC2.
 *
 * Messages are hints ("look at this record now"); the executor re-reads every record and re-plans
 * it, so duplicate, late and stale messages are harmless. Per batch it: drops duplicates; reads
 * the records in bulk; claims each record it will act on with a conditional write; makes one
 * DescribeVolumes and one DescribeInstances call for everything it must look at; allocates device
 * names; runs the mutating calls concurrently under a token bucket per EC2 request bucket; classifies errors
 * through the one table in errors.ts; writes each record's status conditionally (a deleted record
 * is never recreated); and schedules follow-ups as delayed messages. Only messages whose failure
 * was our own infrastructure's (record store or queue) are reported back for redelivery: the
 * message stays on the queue until its follow-up is sent, so it is its own crash recovery.
 *
 * This module holds the batch's pipeline; its steps are in lib/engine/execution (the gates before a
 * claim, the token line, the describes, the checks, results, follow-ups, ownership) and
 * lib/engine/operations (one module per EC2 operation), functions that take the Executor's shared
 * state (`ExecutorContext`) as their first argument.
 */
import { randomUUID } from 'node:crypto';
import { keyOf, keyString, type AttachmentRecord, type ProvisionerRecord, type RecordKey, type VolumeRecord } from '../domain/records.js';
import { QUEUE } from '../settings.js';
import { shortenAround } from '../domain/status-message.js';
import { RATE_BUCKET_OF, RATE_BUCKETS, resolveEngineConfig, type RateBucket } from './config.js';
import { errorMessage } from './errors.js';
import {
  CHECK_OPERATIONS,
  detachesByTags,
  detachingByTags,
  detachesPastInvalidRecord,
  givenUpWithDevice,
  firstActionOf,
  planAttachment,
  planVolume,
  releasedByVolume,
  waitsForVolumeInUse,
  type Decision,
} from './planner.js';
import { ConditionFailedError, ItemTooLargeError, type OperationKind, type OperationMessage, type QueuedOperation, type RecordChanges, unchangedSince } from './ports.js';
import { TokenBucket } from './rate-limiter.js';
import { judgeRecord, RECORD_TOO_LARGE_LOG, writeRejection } from './rejection.js';
import { changesWithoutCall, FUTURE_MODIFICATION_START_LOG, markAttachmentsDying, VOLUME_RECORD_REMOVED_LOG, type DecisionWithoutCall } from './without-call.js';
import type { ExecutorDeps, ExecutorContext } from './execution/context.js';
import type { Result, Item } from './execution/item.js';
import { ownMessage, noteChain, alsoChecks, messageAt, resend, followUp, cooldownMessage, resendLaterCopy, chainAfterCascade } from './execution/follow-ups.js';
import { stepFailed } from './execution/results.js';
import { ownCreateRequest } from './execution/ownership.js';
import { checkVolume, checkAttachment } from './execution/checks.js';
import { reserveTokens } from './execution/token-line.js';
import { findOrphans, describe, describeInstances } from './execution/describe.js';
import { chainEnded, retrySuperseded, heldByOther, checkNotDue, retryNotDue } from './execution/gates.js';
import { trusted, countFailure, writeObservation } from './execution/observations.js';
import { prepareCreates } from './operations/create.js';
import { prepareAttaches } from './operations/attach.js';
import { prepareDetach } from './operations/detach.js';
import { deleteVolume } from './operations/delete.js';
import { prepareModify } from './operations/modify.js';
import { prepareTag } from './operations/tag.js';

export type { ExecutorDeps } from './execution/context.js';
export {
  createVolumeClientToken,
  notThisDeployments,
  ownCreateRequest,
  ownedByAnotherRecord,
  VOLUME_NOT_OWNED_CODE,
  VOLUME_OF_ANOTHER_RECORD_CODE,
} from './execution/ownership.js';

export interface ExecutorBatchItem {
  messageId: string;
  message: OperationMessage;
  /** Deliveries of this message so far, this one included (SQS's ApproximateReceiveCount); unknown when absent. */
  receiveCount?: number;
}

export interface ExecutorRunOptions {
  /** Milliseconds the invocation has left (Lambda's getRemainingTimeInMillis); bounds waits for rate tokens. */
  remainingTimeMs?: number;
}

/** The status code of a record whose message SQS dead-lettered, the executor having failed on it every time. */
export const EXECUTOR_FAILED_CODE = 'ExecutorFailed';

/** Time kept free at the end of an invocation for status writes and follow-ups after the last EC2 call. */
const INVOCATION_RESERVE_MS = 10_000;

/** Carries out operation messages; one instance may serve many invocations. */
export class Executor {
  /** What its steps share: dependencies, config, rate buckets and described instances, kept across invocations. */
  private readonly ctx: ExecutorContext;
  private readonly newOwnerId: () => string;

  constructor(deps: ExecutorDeps) {
    const config = resolveEngineConfig(deps.config);
    const random = deps.random ?? Math.random;
    this.newOwnerId = deps.newOwnerId ?? (() => `executor-${randomUUID()}`);
    const buckets = Object.fromEntries(RATE_BUCKETS.map((bucket) => [bucket, new TokenBucket(deps.clock, config.rateBudgets[bucket], config.throttleRateFactor)])) as Record<RateBucket, TokenBucket>;
    this.ctx = { deps, config, random, buckets, instanceCache: new Map() };
  }

  async run(batch: ExecutorBatchItem[], options: ExecutorRunOptions = {}): Promise<{ failedMessageIds: string[] }> {
    const owner = this.newOwnerId();
    const now = this.ctx.deps.clock.now();
    const remaining = options.remainingTimeMs === undefined ? Number.POSITIVE_INFINITY : options.remainingTimeMs - INVOCATION_RESERVE_MS;
    const maxTokenWaitMs = Math.max(0, Math.min(this.ctx.config.rateWaitMaxMs, remaining));
    // No EC2 call starts after this: what is left of the invocation is for the writes and follow-ups.
    const deadline = now + remaining;
    const items = this.dedupe(batch);
    const followUps: { item: Item; operation: QueuedOperation }[] = [];

    // Not due yet: chain another delayed message.
    const active: Item[] = [];
    for (const item of items) {
      if (item.dueAt !== undefined && item.dueAt > now) {
        resend(this.ctx, item, 'waiting for dueAt', now, item.dueAt, followUps);
      } else active.push(item);
    }

    // Attachments released by their volume (`releasedAttachments`): their failures fail the message that carried the volume.
    const releasedItems: Item[] = [];
    if (active.length > 0 && !(await this.readRecords(active))) {
      for (const item of active) item.infraFailed = true;
    } else {
      // Volumes this batch's checks saw become available: their waiting attachments go now, in this
      // invocation, beside the batch's own calls (which may be waiting for rate tokens).
      const releaseWaiting = async (checked: Item[]) => {
        const released = await this.releasedAttachments(checked);
        if (released.length === 0) return;
        releasedItems.push(...released);
        const later = this.ctx.deps.clock.now();
        const wait = Math.max(0, Math.min(maxTokenWaitMs, remaining - (later - now)));
        // The watcher's message for each brings it back anyway: here only what tokens allow now.
        await this.process(released.filter((item) => item.ownMessage), owner, later, followUps, wait, undefined, false, deadline);
        // Those taken up again have no other message: they take their tokens as their own would.
        await this.process(released.filter((item) => !item.ownMessage), owner, later, followUps, wait, undefined, true, deadline);
      };
      await this.process(active, owner, now, followUps, maxTokenWaitMs, releaseWaiting, true, deadline);
    }

    await this.sendFollowUps(followUps);
    const failed = items.filter((item) => item.infraFailed);
    await this.noteDeadLetters(failed, owner);
    const failedReleases = releasedItems.filter((item) => item.infraFailed);
    return { failedMessageIds: [...new Set([...failed, ...failedReleases].flatMap((item) => item.messageIds))] };
  }

  /**
   * Items whose step threw (`stepFailed`) on the last delivery SQS makes of their message (`QUEUE.maxReceiveCount`): the
   * message goes to the dead-letter queue, and the record's status says so (its state as it is),
   * so a client does not read an operation under way with nothing wrong, nor a next attempt already
   * due (that attempt was the message given up on). Its claim is let go. The
   * reconciler's nudges try again; the next status written in its place clears the note. A write
   * that cannot be made (the record changed, the table failing) is left: the log has the failure.
   */
  private async noteDeadLetters(failed: Item[], owner: string): Promise<void> {
    // Only a step that threw: a failure of the table or the queue may come after the record's work was done and written.
    const last = failed.filter((item) => item.record && item.failure !== undefined && item.receiveCount !== undefined && item.receiveCount >= QUEUE.maxReceiveCount);
    if (last.length === 0) return;
    let current: Map<string, ProvisionerRecord>;
    try {
      // As they are now (this invocation may have let go of their claims since): one bulk read, as the batch reads its records.
      current = new Map((await this.ctx.deps.store.getMany(last.map((item) => item.key))).map((raw) => [keyString(keyOf(raw)), raw]));
    } catch (error) {
      this.ctx.deps.log.warn('could not read the records of dead-lettered messages', { keys: last.map((item) => item.id), error: errorMessage(error) });
      return;
    }
    await Promise.all(
      last.map(async (item) => {
        const raw = current.get(item.id);
        const record = raw && trusted(this.ctx, raw);
        const now = this.ctx.deps.clock.now();
        // Unless another invocation holds it.
        if (!record || (record.claim && record.claim.owner !== owner && record.claim.expiresAt > now)) return;
        // A next attempt already due was this message's: nothing is queued for it any more. One still ahead has its own message.
        const { nextAttemptAt, ...kept } = record.status;
        const ahead = nextAttemptAt !== undefined && Date.parse(nextAttemptAt) > now ? { nextAttemptAt } : {};
        // A long failure is shortened, never the sentences after it that say what comes next.
        const message = shortenAround(
          `the executor failed on this record ${item.receiveCount} times (`,
          item.failure!,
          '); its message went to the dead-letter queue.' +
            (ahead.nextAttemptAt ? ` Its next attempt is still queued, at ${ahead.nextAttemptAt}` : ' Nothing more is done until the reconciler looks at it again'),
        );
        const status = { ...kept, ...ahead, code: EXECUTOR_FAILED_CODE, message, updatedAt: new Date(now).toISOString() };
        try {
          await this.ctx.deps.store.update(item.key, { status, claim: null } as RecordChanges, unchangedSince(record));
          this.ctx.deps.log.error('message dead-lettered; status written on the record', { key: item.id, receiveCount: item.receiveCount, cause: item.failure });
        } catch (error) {
          this.ctx.deps.log.warn('could not write the status of a dead-lettered message', { key: item.id, error: errorMessage(error) });
        }
      }),
    );
  }

  // -------------------------------------------------------------------------------------------
  // Reading and claiming
  // -------------------------------------------------------------------------------------------

  private dedupe(batch: ExecutorBatchItem[]): Item[] {
    const byKey = new Map<string, Item>();
    for (const { messageId, message, receiveCount } of batch) {
      const id = keyString(message.key);
      const existing = byKey.get(id);
      if (!existing) {
        const item: Item = { key: message.key, id, messageIds: [messageId], hint: message.op, ops: [message.op], dueAt: message.dueAt, latestDueAt: message.dueAt, tokenAt: message.tokenAt };
        if (receiveCount !== undefined) item.receiveCount = receiveCount;
        if (message.nudge) item.nudgeOnly = true;
        if (ownMessage(message)) item.ownMessage = true;
        if (message.retryOf !== undefined) item.retriesOf = [message.retryOf];
        if (message.nudge || message.retryOf !== undefined) item.looksAndRetriesOnly = true;
        noteChain(item, message);
        if (message.dueAt !== undefined) item.latestOp = message.op;
        if (message.tokenAt !== undefined) item.tokenOp = message.op;
        byKey.set(id, item);
        continue;
      }
      existing.messageIds.push(messageId);
      if (receiveCount !== undefined) existing.receiveCount = Math.max(existing.receiveCount ?? 0, receiveCount);
      if (!existing.ops.includes(message.op)) existing.ops.push(message.op);
      if (!message.nudge) delete existing.nudgeOnly;
      if (ownMessage(message)) existing.ownMessage = true;
      if (message.retryOf !== undefined) (existing.retriesOf ??= []).push(message.retryOf);
      if (!message.nudge && message.retryOf === undefined) delete existing.looksAndRetriesOnly;
      noteChain(existing, message);
      // Act as soon as any of the copies is due, on the earliest token any of them holds.
      existing.dueAt = existing.dueAt === undefined || message.dueAt === undefined ? undefined : Math.min(existing.dueAt, message.dueAt);
      if (message.dueAt !== undefined && (existing.latestDueAt === undefined || message.dueAt > existing.latestDueAt)) {
        existing.latestDueAt = message.dueAt;
        existing.latestOp = message.op;
      }
      if (message.tokenAt !== undefined && (existing.tokenAt === undefined || message.tokenAt < existing.tokenAt)) {
        existing.tokenAt = message.tokenAt;
        existing.tokenOp = message.op;
      }
    }
    if (byKey.size < batch.length) this.ctx.deps.log.debug('dropped duplicate messages', { duplicates: batch.length - byKey.size });
    return [...byKey.values()];
  }

  /** One bulk read for the records and the volumes of the attachments; attachments of dying volumes. */
  private async readRecords(items: Item[]): Promise<boolean> {
    const keys = new Map<string, RecordKey>();
    for (const item of items) {
      keys.set(item.id, item.key);
      if (item.key.kind === 'attachment') {
        const volumeKey: RecordKey = { kind: 'volume', volumeId: item.key.volumeId };
        keys.set(keyString(volumeKey), volumeKey);
      }
    }
    let records: ProvisionerRecord[];
    try {
      records = await this.ctx.deps.store.getMany([...keys.values()]);
    } catch (error) {
      this.ctx.deps.log.error('reading records failed', { error: errorMessage(error) });
      return false;
    }
    // Records are input: one rejected (`judgeRecord`) is not acted on here (its rejection is written
    // as the watcher writes it, `reject`), nor is an attachment whose volume record does not parse: it
    // is not a removed one. One rejected only for a claim or times no executor wrote is read as it
    // is by its attachments.
    const byId = new Map<string, ProvisionerRecord>();
    const rejected = new Map<string, { raw: ProvisionerRecord; reasons: string }>();
    const now = this.ctx.deps.clock.now();
    for (const raw of records) {
      const { record, rejection } = judgeRecord(raw, now, this.ctx.config.claimLeaseMs);
      if (record) byId.set(keyString(keyOf(record)), record);
      if (rejection !== undefined) rejected.set(keyString(keyOf(raw)), { raw, reasons: rejection });
    }
    for (const item of items) {
      item.rejected = rejected.get(item.id);
      item.record = item.rejected ? undefined : byId.get(item.id);
      item.readState = item.record?.status.state;
      if (item.rejected) item.invalid = 'record';
      if (item.key.kind === 'attachment') {
        const volumeId = keyString({ kind: 'volume', volumeId: item.key.volumeId });
        const volume = byId.get(volumeId);
        item.volume = volume?.kind === 'volume' ? volume : undefined;
        const invalidVolume = volume ? undefined : rejected.get(volumeId)?.raw;
        if (invalidVolume && !(item.record?.kind === 'attachment' && detachesPastInvalidRecord(item.record, (invalidVolume as { createdAt?: unknown }).createdAt))) item.invalid ??= 'volume';
      }
    }
    await Promise.all(
      items.map(async (item) => {
        if (item.record?.kind !== 'volume' || item.record.life !== 'dying') return;
        try {
          item.attachments = await this.ctx.deps.store.attachmentsOfVolume(item.record.volumeId);
        } catch (error) {
          this.ctx.deps.log.error('reading attachments failed', { key: item.id, error: errorMessage(error) });
          item.infraFailed = true;
        }
      }),
    );
    return true;
  }

  /**
   * Writes the rejection of an invalid record that does not carry it yet (the watcher's change lost
   * on the way, found by the reconciler), as the watcher does: it says why in the end.
   */
  private async reject(item: Item, { raw, reasons }: { raw: ProvisionerRecord; reasons: string }): Promise<void> {
    try {
      await writeRejection(this.ctx.deps, raw, item.key, reasons);
    } catch (error) {
      // The record stays as it is: its client's next change, or the reconciler's next pass, brings it again.
      if (error instanceof ItemTooLargeError) this.ctx.deps.log.warn(RECORD_TOO_LARGE_LOG, { key: item.id, error: errorMessage(error) });
      else this.ctx.deps.log.warn('could not write the rejection of an invalid record; the reconciler looks at it again', { key: item.id, error: errorMessage(error) });
    }
  }

  private plan(item: Item, now: number): Decision | undefined {
    const record = item.record;
    if (!record) return undefined;
    if (record.kind === 'attachment') {
      const decision = planAttachment(record, item.volume);
      // A check asked for an attachment at rest (the reconciler): was it detached, or its volume deleted, behind our back?
      if (decision.type === 'none' && item.ops.includes('check-attachment') && record.status.state === 'attached' && item.volume?.ebsVolumeId)
        return { type: 'operation', op: 'check-attachment', reason: 'syncing with EC2' };
      // A check asked for an attachment given up on with its device kept (the executor itself, or the reconciler): did the attach take after all?
      if (decision.type === 'none' && item.ops.includes('check-attachment') && givenUpWithDevice(record, item.volume) && item.volume?.ebsVolumeId)
        return { type: 'operation', op: 'check-attachment', reason: 'given up with a device kept; the attach may have taken' };
      // A check asked for an attachment waiting for its single-attach volume in use that no other attachment record holds (the watcher): is it attached here?
      if (decision.type === 'wait' && item.ops.includes('check-attachment') && waitsForVolumeInUse(record, item.volume))
        return { type: 'operation', op: 'check-attachment', reason: 'volume in use; looking whether it is attached here' };
      return decision;
    }
    const decision = planVolume(record, item.attachments ?? [], now);
    // A check asked for a volume at rest (an attachment changed, or the reconciler): bring in-use / available in line with EC2.
    if ((decision.type === 'none' || decision.type === 'invalid-spec' || decision.type === 'cooldown') && item.ops.includes('check-volume') && record.ebsVolumeId && (record.status.state === 'available' || record.status.state === 'in-use'))
      return { type: 'operation', op: 'check-volume', reason: 'syncing with EC2' };
    return decision;
  }

  private async process(
    items: Item[],
    owner: string,
    now: number,
    followUps: { item: Item; operation: QueuedOperation }[],
    maxTokenWaitMs: number,
    afterChecks?: (checked: Item[]) => Promise<void>,
    /** False: calls take only tokens usable within `maxTokenWaitMs`; one without is left to another message. */
    takeAhead = true,
    /** When the invocation stops starting EC2 calls (epoch ms). */
    deadline = Number.POSITIVE_INFINITY,
  ) {
    const toClaim: Item[] = [];
    const onWrite: Item[] = [];
    const observers: Item[] = [];
    const needTokens: Item[] = [];
    for (const item of items) {
      if (item.infraFailed) continue;
      item.deadline = deadline;
      if (item.invalid) {
        const message = item.invalid === 'record' ? 'record invalid; not acting on it until it is put right' : 'volume record invalid; its attachment is left as it is until the record is put right';
        this.ctx.deps.log.warn(message, { key: item.id });
        this.ctx.deps.metrics.operation({ operation: item.hint, outcome: 'skipped' });
        if (item.rejected) await this.reject(item, item.rejected);
        continue;
      }
      if (chainEnded(this.ctx, item) || retrySuperseded(item)) item.nudgeOnly = true;
      let decision: Decision | undefined;
      try {
        decision = this.plan(item, now);
      } catch (error) {
        stepFailed(this.ctx, item, error);
        continue;
      }
      if (!decision) {
        this.ctx.deps.log.info('record no longer exists; nothing to do', { key: item.id });
        this.ctx.deps.metrics.operation({ operation: item.hint, outcome: 'skipped' });
        continue;
      }
      item.decision = decision;
      if (decision.type === 'operation' && retryNotDue(this.ctx, item, decision.op, now, followUps)) continue;
      if (decision.type === 'operation' && CHECK_OPERATIONS.has(decision.op)) {
        if (heldByOther(this.ctx, item, now, followUps) || checkNotDue(this.ctx, item, decision.op, now, followUps)) continue;
        item.observer = true;
        observers.push(item);
        continue;
      }
      const claimOnWrite = decision.type === 'operation' && claimsWithPreWrite(item.record!, decision.op);
      if (claimOnWrite && heldByOther(this.ctx, item, now, followUps)) continue;
      item.claimOnWrite = claimOnWrite || undefined;
      if (decision.type === 'operation' && firstActionOf(decision.op, item.record!)) needTokens.push(item);
      else if (decision.type === 'operation' || decision.type === 'remove') (item.claimOnWrite ? onWrite : toClaim).push(item);
      else await this.handleWithoutClaim(item, decision, now, followUps);
    }
    // Operations deferred for want of a token go back now, not after this invocation's waits for tokens.
    const deferrals: { item: Item; operation: QueuedOperation }[] = [];
    for (const item of await reserveTokens(this.ctx, needTokens, now, maxTokenWaitMs, deferrals, takeAhead)) (item.claimOnWrite ? onWrite : toClaim).push(item);
    await this.sendFollowUps(deferrals);

    await Promise.all(toClaim.map((item) => this.claim(item, owner, now, followUps)));
    const claimed = [...toClaim.filter((item) => item.claimed), ...onWrite, ...observers];

    // Write results, then plan and send follow-ups from what was written: a group as soon as its
    // results are in, so a check's next step does not wait for calls queued behind rate tokens.
    const flushed = new Set<Item>();
    const flush = async (group: Item[]) => {
      const fresh = group.filter((item) => !flushed.has(item));
      for (const item of fresh) flushed.add(item);
      if (fresh.length === 0) return;
      const local: { item: Item; operation: QueuedOperation }[] = [];
      // Follow-ups are timed from now, not from the batch's start: calls may have waited for tokens.
      const writtenAt = this.ctx.deps.clock.now();
      await Promise.all(fresh.map((item) => this.writeResult(item, owner, writtenAt, local)));
      await this.sendFollowUps(local);
    };
    try {
      await this.act(claimed, owner, now, flush, afterChecks);
    } finally {
      // Tokens reserved for calls that were not made (claim lost, re-planned, prerequisite missing) go back.
      for (const item of [...toClaim, ...onWrite]) if (item.token && !item.token.used && !item.token.shared) this.ctx.buckets[RATE_BUCKET_OF[item.token.action]].refund();
    }
    await flush(claimed);
  }

  /**
   * An attachment's wait for its volume, written on the volume as read at the start of the batch:
   * the volume may have moved since, and the watcher, reading the attachment before this write,
   * left it to the retry it had scheduled, which the wait just cleared. So the volume is read once
   * more after the write: one of the two sees the other's change, and a wait that no longer holds
   * goes on at once. A failed read leaves it to the reconciler's pass.
   */
  private async lookAgainAfterWait(item: Item, written: AttachmentRecord, now: number, followUps: { item: Item; operation: QueuedOperation }[]) {
    try {
      const [raw] = await this.ctx.deps.store.getMany([{ kind: 'volume', volumeId: written.volumeId }]);
      const volume = raw && trusted(this.ctx, raw);
      // The same version of the same record: one removed and written again starts its version again.
      if (volume?.kind !== 'volume' || (volume.version === item.volume?.version && volume.createdAt === item.volume.createdAt)) return;
      const decision = planAttachment(written, volume);
      if (decision.type === 'operation') followUps.push({ item, operation: messageAt(this.ctx, decision.op, item.key, decision.reason, now, now) });
    } catch (error) {
      this.ctx.deps.log.warn('reading the volume after a wait failed', { key: item.id, error: errorMessage(error) });
    }
  }

  /**
   * The attachments waiting for volumes that this batch's checks saw become available, as items
   * to process in the same invocation (`releasedByVolume`: an attach, or the check of one that kept
   * its device); the stream would bring them to the watcher a few seconds later, whose messages
   * then find them under way. A failed read only loses the shortcut. They have no message of their
   * own: each carries the ids of the message that carried its volume, so a follow-up of theirs that
   * cannot be sent (or a write that fails) has that message delivered again. Delivered again (`again`),
   * a check that reads the volume available or in use already takes up the attachments such a release
   * may have left with nothing queued (`leftByRelease`): attaching, or pending for the retry of a failed attach.
   */
  private async releasedAttachments(items: Item[]): Promise<Item[]> {
    const inBatch = new Set(items.map((item) => item.id));
    const volumes = items.flatMap((item) => {
      const record = item.record;
      const before = item.readState;
      if (!item.observer || record?.kind !== 'volume' || record.life !== 'alive') return [];
      if (record.status.state === 'available' && (before === 'creating' || before === 'pending')) return [{ item, volume: record, again: false }];
      // Attached since, perhaps by the attachments released: in use.
      const ready = (state: string | undefined) => state === 'available' || state === 'in-use';
      return ready(before) && ready(record.status.state) && (item.receiveCount ?? 1) > 1 ? [{ item, volume: record, again: true }] : [];
    });
    const released: Item[] = [];
    await Promise.all(
      volumes.map(async ({ item, volume, again }) => {
        try {
          for (const raw of await this.ctx.deps.store.attachmentsOfVolume(volume.volumeId)) {
            const attachment = trusted(this.ctx, raw);
            if (attachment?.kind !== 'attachment') continue;
            const decision = releasedByVolume(attachment, volume) ?? (again ? leftByRelease(attachment, volume) : undefined);
            if (decision?.type !== 'operation') continue;
            const key = keyOf(attachment);
            const id = keyString(key);
            if (inBatch.has(id)) continue;
            inBatch.add(id);
            const base = { key, id, messageIds: item.messageIds, hint: decision.op, ops: [decision.op], record: attachment, volume };
            // Taken up again, it stands in for a message of its own that was lost: gated as one delivered again (a retry not yet due comes back then).
            released.push(again && !releasedByVolume(attachment, volume) ? { ...base, receiveCount: item.receiveCount } : { ...base, ownMessage: true });
          }
        } catch (error) {
          this.ctx.deps.log.warn('reading attachments of an available volume failed; the watcher releases them', { key: keyString(keyOf(volume)), error: errorMessage(error) });
        }
      }),
    );
    return released;
  }

  private async claim(item: Item, owner: string, now: number, followUps: { item: Item; operation: QueuedOperation }[]) {
    try {
      const result = await this.ctx.deps.store.claim(item.key, owner, now, this.ctx.config.claimLeaseMs);
      if (result.ok) {
        item.claimed = true;
        item.record = trusted(this.ctx, result.record);
        item.decision = this.plan(item, now) ?? { type: 'none', reason: 'record is invalid' };
        return;
      }
      if (result.reason === 'missing') {
        this.ctx.deps.log.info('record deleted before its operation; no EC2 call', { key: item.id });
        this.ctx.deps.metrics.operation({ operation: item.hint, outcome: 'skipped' });
        return;
      }
      // Someone else is on it; look again when their lease ends in case they crashed.
      const expiresAt = result.record.claim?.expiresAt ?? now;
      resend(this.ctx, item, 'claimed by another invocation', now, Math.max(expiresAt, now + 1000), followUps);
      this.ctx.deps.metrics.operation({ operation: item.hint, outcome: 'skipped' });
    } catch (error) {
      this.ctx.deps.log.error('claim failed', { key: item.id, error: errorMessage(error) });
      item.infraFailed = true;
      // The table may have made the claim and lost its answer: let go of it (a claim not this
      // invocation's is left as it is), so the record's next message is not put off until its lease ends.
      await this.releaseOrLetLapse(item, owner);
    }
  }

  /**
   * Decisions that change no EC2 state, met by a late, repeated or early message: waiting for
   * another record or for EC2's modification limit, making attachments dying (whose own changes bring their
   * detaches through the watcher), a spec EBS cannot reach, an attachment whose volume record was
   * removed from the table, or nothing to do (a spec change EC2 already holds is recorded, a wait
   * the spec no longer needs is cleared).
   */
  private async handleWithoutClaim(item: Item, decision: DecisionWithoutCall, now: number, followUps: { item: Item; operation: QueuedOperation }[]) {
    const record = item.record!;
    try {
      if (decision.type === 'cascade-dying') await markAttachmentsDying(this.ctx.deps.store, decision.attachments);
      const changes = changesWithoutCall(record, decision, now);
      if (changes) {
        const written = await this.ctx.deps.store.update(item.key, changes, unchangedSince(record));
        if (decision.type === 'wait' && written.kind === 'attachment') await this.lookAgainAfterWait(item, written, now, followUps);
        if (decision.type === 'volume-record-removed') this.ctx.deps.log.warn(VOLUME_RECORD_REMOVED_LOG, { key: item.id, reason: decision.reason });
        if ('lastModificationStartedAt' in changes) {
          const { lastModificationStartedAt, earlierModificationStarts } = record as VolumeRecord;
          this.ctx.deps.log.warn(FUTURE_MODIFICATION_START_LOG, { key: item.id, lastModificationStartedAt, earlierModificationStarts });
        }
        // The wait shown again (a status write dropped it, or it is new): a message brings the modification back when it ends.
        if (decision.type === 'cooldown') followUps.push({ item, operation: messageAt(this.ctx, decision.op, item.key, decision.reason, now, decision.atMs) });
        if (decision.type === 'cascade-dying' && written.kind === 'volume') this.goOnWithChain(item, written, now, followUps);
      } else if (decision.type === 'cascade-dying' && record.kind === 'volume') {
        this.goOnWithChain(item, record, now, followUps);
      } else if (decision.type === 'cooldown') {
        // The status shows the wait already: only the wait's own message is kept.
        const message = cooldownMessage(this.ctx, item, decision, now);
        if (message) followUps.push({ item, operation: message });
      }
      this.ctx.deps.metrics.operation({ operation: item.hint, outcome: 'skipped' });
    } catch (error) {
      if (error instanceof ConditionFailedError) {
        // Changed meanwhile; its own change re-plans it.
        resendLaterCopy(this.ctx, item, now, now, followUps);
        return;
      }
      this.ctx.deps.log.error('status write failed', { key: item.id, error: errorMessage(error) });
      item.infraFailed = true;
    }
  }

  /**
   * A check of the chain of the operation EC2 has under way on a dying volume (a modification, a
   * creation) that made its attachments dying: the chain goes on while they detach
   * (`chainAfterCascade`), so the operation's end is seen and the delete follows.
   */
  private goOnWithChain(item: Item, volume: VolumeRecord, now: number, followUps: { item: Item; operation: QueuedOperation }[]) {
    const next = chainAfterCascade(this.ctx, item, volume, now);
    if (next) followUps.push({ item, operation: next });
  }

  // -------------------------------------------------------------------------------------------
  // Acting
  // -------------------------------------------------------------------------------------------

  private async act(items: Item[], owner: string, now: number, flush: (group: Item[]) => Promise<void>, afterChecks?: (checked: Item[]) => Promise<void>) {
    const byOp = (op: OperationKind) => items.filter((item) => item.decision?.type === 'operation' && item.decision.op === op);
    for (const item of items) if (item.decision?.type === 'remove') item.result = { outcome: 'succeeded', remove: true };

    const creates = byOp('create-volume');
    const attaches = byOp('attach');
    const detaches = byOp('detach');
    const deletes = byOp('delete-volume');
    const modifies = byOp('modify-volume');
    const tags = byOp('tag-volume');
    const volumeChecks = byOp('check-volume');
    const attachmentChecks = byOp('check-attachment');

    // One DescribeVolumes for every volume whose EC2 state matters, one DescribeInstances for every instance.
    const volumeIds = new Set<string>();
    // Deletes too, of records that cannot show their EC2 volume is their own (`ownCreateRequest`): a
    // volume record written straight into the table may name another record's (`ownedByAnotherRecord`),
    // or one this deployment did not create (`notThisDeployments`).
    for (const item of [...volumeChecks, ...modifies, ...tags, ...deletes.filter((item) => !ownCreateRequest(item.record as VolumeRecord))]) {
      const id = (item.record as VolumeRecord).ebsVolumeId;
      if (id) volumeIds.add(id);
    }
    for (const item of attachmentChecks) if (item.volume?.ebsVolumeId) volumeIds.add(item.volume.ebsVolumeId);
    // Attaches and detaches of such a record's attachments, which would act on the other record's volume.
    for (const item of [...attaches, ...detaches]) if (item.volume?.ebsVolumeId && !ownCreateRequest(item.volume)) volumeIds.add(item.volume.ebsVolumeId);
    const instanceIds = new Set<string>();
    // A retried attach describes its instance afresh: the description it used may be what failed it.
    const describeAfresh = new Set<string>();
    for (const item of attaches) {
      const attachment = item.record as AttachmentRecord;
      instanceIds.add(attachment.instanceId);
      if (attachment.status.attempts > 0) describeAfresh.add(attachment.instanceId);
    }
    for (const item of creates) {
      const volume = item.record as VolumeRecord;
      if (!volume.createRequest && !volume.spec.availabilityZone && !volume.availabilityZone && volume.spec.placementInstanceId)
        instanceIds.add(volume.spec.placementInstanceId);
    }
    // Modifications of the volumes being modified (under way?) and of those about to be (is one under way already?).
    const modifyingIds = [
      ...volumeChecks.map((item) => item.record as VolumeRecord).filter((volume) => volume.status.state === 'modifying'),
      ...modifies.map((item) => item.record as VolumeRecord),
    ].flatMap((volume) => (volume.ebsVolumeId ? [volume.ebsVolumeId] : []));

    const [volumes, instances, modifications] = await Promise.all([
      describe(this.ctx, [...volumeIds], this.ctx.config.describeChunkSize.volumes, (ids) => this.ctx.deps.provider.describeVolumes(ids), (v) => v.ebsVolumeId),
      describeInstances(this.ctx, [...instanceIds], now, describeAfresh),
      describe(this.ctx, modifyingIds, this.ctx.config.describeChunkSize.volumes, (ids) => this.ctx.deps.provider.describeVolumeModifications(ids), (m) => m.ebsVolumeId),
      // Detaches and checks of detaches of attachments whose volume record is gone (or written again since the detach began) find its EC2 volumes by their tags.
      findOrphans(this.ctx, [...detaches.filter((item) => !item.volume || detachesByTags(item.record as AttachmentRecord, item.volume)), ...attachmentChecks.filter((item) => detachingByTags(item.record as AttachmentRecord, item.volume))]),
    ]);

    // The describes (or the reads before them) took the time the calls had: none starts now, each
    // comes back in a message of its own, with its claim let go and nothing written.
    const mutating = [...creates, ...attaches, ...detaches, ...deletes, ...modifies, ...tags];
    const late = mutating.filter((item) => item.deadline !== undefined && this.ctx.deps.clock.now() >= item.deadline);
    for (const item of late) {
      this.ctx.deps.log.warn('invocation out of time; deferring the EC2 call to a message', { key: item.id });
      item.result = { outcome: 'throttled' };
      item.lookAgainAt = this.ctx.deps.clock.now();
    }
    const inTime = (group: Item[]) => group.filter((item) => !late.includes(item));

    for (const item of volumeChecks) item.result = this.guard(item, () => checkVolume(this.ctx, item, now, volumes, modifications));
    for (const item of attachmentChecks) item.result = this.guard(item, () => checkAttachment(this.ctx, item, now, volumes));
    const checked = [...volumeChecks, ...attachmentChecks];
    const checksWritten = flush(checked).then(() => afterChecks?.(checked));

    const runs: { item: Item; run: () => Promise<void> }[] = [];
    runs.push(...(await prepareCreates(this.ctx, inTime(creates), owner, now, instances)));
    runs.push(...(await prepareAttaches(this.ctx, inTime(attaches), owner, now, instances, volumes)));
    // Each step prepared on its own: one that throws fails its own message (`stepFailed`), not the batch.
    const prepare = (item: Item, prepared: () => (() => Promise<void>) | undefined) => {
      try {
        const run = prepared();
        if (run) runs.push({ item, run });
      } catch (error) {
        stepFailed(this.ctx, item, error);
      }
    };
    for (const item of inTime(detaches)) prepare(item, () => prepareDetach(this.ctx, item, owner, now, volumes));
    for (const item of inTime(deletes)) prepare(item, () => deleteVolume(this.ctx, item, now, volumes));
    for (const item of inTime(modifies)) prepare(item, () => prepareModify(this.ctx, item, owner, now, volumes, modifications));
    for (const item of inTime(tags)) prepare(item, () => prepareTag(this.ctx, item, owner, now, volumes));
    // Calls whose tokens fall in the same second are written and followed up together.
    const bySecond = new Map<number, { items: Item[]; calls: Promise<void>[] }>();
    for (const { item, run } of runs) {
      const second = item.token ? Math.max(0, Math.floor((item.token.atMs - now) / 1000)) : 0;
      const group = bySecond.get(second) ?? { items: [], calls: [] };
      group.items.push(item);
      group.calls.push(run());
      bySecond.set(second, group);
    }
    await Promise.all([checksWritten, ...[...bySecond.values()].map(async (group) => {
      const outcomes = await Promise.allSettled(group.calls);
      outcomes.forEach((outcome, index) => {
        if (outcome.status === 'rejected') stepFailed(this.ctx, group.items[index]!, outcome.reason);
      });
      await flush(group.items);
    })]);
  }

  /** One record's bug must not take the batch down: log it, leave the record as it is (the claim is released). */
  private guard(item: Item, run: () => Result): Result | undefined {
    try {
      return run();
    } catch (error) {
      this.ctx.deps.log.error('deciding a result failed', { key: item.id, error: errorMessage(error) });
      return undefined;
    }
  }

  // -------------------------------------------------------------------------------------------
  // Writing results
  // -------------------------------------------------------------------------------------------

  /** Writes one record's result (releasing the claim) and plans its follow-up from what was written. */
  private async writeResult(item: Item, owner: string, now: number, followUps: { item: Item; operation: QueuedOperation }[]) {
    const op = item.decision?.type === 'operation' ? item.decision.op : item.hint;
    // Re-planned after the claim into something that needs no EC2 call: just let go.
    const result = item.result ?? (item.claimed ? { outcome: 'skipped' as const } : undefined);
    if (!result) return;
    this.ctx.deps.metrics.operation({ operation: op, outcome: result.outcome, latencyMs: result.latencyMs });
    if (item.observer) return writeObservation(this.ctx, item, result, now, followUps);
    if (item.lookAgainAt !== undefined) {
      if (item.claimed) await this.releaseOrLetLapse(item, owner);
      resend(this.ctx, item, 'record changed before the call; looking again', now, item.lookAgainAt, followUps);
      return;
    }
    // An operation that would have claimed with its pre-call write but stopped before it (a
    // prerequisite, a failed describe) holds no claim: it writes on the version it read.
    const unclaimed = !item.claimed && item.claimOnWrite === true && result.changes !== undefined;
    if (!item.claimed && !unclaimed) return;
    // The claim must still be ours now, not just when the batch started.
    const condition = unclaimed ? unchangedSince(item.record!) : { claimOwner: owner, now: this.ctx.deps.clock.now() };
    try {
      if (result.remove) {
        // Only as dying as it was read: a record set back to alive during the call is wanted after all.
        await this.ctx.deps.store.remove(item.key, { ...condition, life: item.record!.life });
        this.ctx.deps.log.info('record removed', { key: item.id, op });
      } else if (result.changes) {
        const before = item.record!;
        const written = await this.ctx.deps.store.update(item.key, { ...result.changes, claim: null }, condition);
        item.record = written;
        countFailure(this.ctx, item, op, result);
        const next = followUp(this.ctx, item, before, written, result, now);
        if (next) followUps.push({ item, operation: next });
      } else {
        await this.ctx.deps.store.release(item.key, owner);
      }
      for (const operation of alsoChecks(item, result)) followUps.push({ item, operation });
    } catch (error) {
      if (error instanceof ConditionFailedError) {
        if (result.remove && !unclaimed && error.current?.claim?.owner === owner && error.current.life !== item.record!.life) {
          // Set back to alive during the call: kept, and looked at as it is now (EC2 may have
          // detached or deleted it meanwhile), without waiting for the claim's lease to end.
          await this.releaseOrLetLapse(item, owner);
          const check = item.key.kind === 'volume' ? 'check-volume' : 'check-attachment';
          followUps.push({ item, operation: messageAt(this.ctx, check, item.key, 'record set back to alive during the call; checking it', now, now) });
          return;
        }
        // Deleted or taken over meanwhile: never recreate it; whoever holds it now carries on.
        this.ctx.deps.log.warn('status write refused; record deleted or claim lost', { key: item.id, op });
        if (unclaimed && error.current) resend(this.ctx, item, 'record changed meanwhile; looking again', now, now + 1000, followUps);
        else resendLaterCopy(this.ctx, item, now, now, followUps);
        return;
      }
      this.ctx.deps.log.error('status write failed', { key: item.id, op, error: errorMessage(error) });
      item.infraFailed = true;
    }
  }

  private async releaseOrLetLapse(item: Item, owner: string): Promise<void> {
    try {
      await this.ctx.deps.store.release(item.key, owner);
    } catch (error) {
      // Held until its lease ends: the look again then waits for that.
      this.ctx.deps.log.warn('could not let go of the claim; it lapses with its lease', { key: item.id, error: errorMessage(error) });
    }
  }

  private async sendFollowUps(followUps: { item: Item; operation: QueuedOperation }[]) {
    if (followUps.length === 0) return;
    try {
      await this.ctx.deps.queue.send(followUps.map((f) => f.operation));
    } catch (error) {
      this.ctx.deps.log.error('scheduling follow-ups failed', { count: followUps.length, error: errorMessage(error) });
      for (const { item } of followUps) item.infraFailed = true;
    }
  }
}

/**
 * What an attachment a release by its volume may have left with nothing queued needs (its
 * follow-up could not be sent): the check of its attach (`attaching`), or the retry of a failed
 * attach (`pending` with its next attempt named). Undefined for the others.
 */
function leftByRelease(attachment: AttachmentRecord, volume: VolumeRecord): Decision | undefined {
  const { state, nextAttemptAt } = attachment.status;
  if (attachment.life !== 'alive' || !(state === 'attaching' || (state === 'pending' && nextAttemptAt !== undefined))) return undefined;
  const decision = planAttachment(attachment, volume);
  return decision.type === 'operation' ? decision : undefined;
}

/** Operations whose first write is the pre-call write, so it can take the claim too. */
function claimsWithPreWrite(record: ProvisionerRecord, op: OperationKind): boolean {
  return op === 'attach' || op === 'tag-volume' || op === 'modify-volume' || (op === 'create-volume' && record.status.state === 'pending');
}

