/**
 * The watcher: turns record changes (the table's stream) into operation messages.
 *
 * It plans from each record's current state rather than from the change's images, so duplicate,
 * late and out-of-order changes are harmless. Records are untrusted (clients may write the table
 * directly): an invalid record gets status `error` with the reasons and no operation; one too
 * large for DynamoDB to take a status on top is logged and counted, never retried. Changes the
 * system made itself (status, claims) are left to the executor, which schedules its own
 * follow-ups, except where they concern other records: a volume that becomes available releases
 * its waiting attachments at once, one that goes into or out of error, or changes otherwise what
 * they wait for (modified while in use, set back to alive), has them say so, and a removed
 * attachment lets its dying volume go. The others are recognised from their validated
 * image, without reading the table. A volume record removed from the table by someone else (the
 * system removes only dying volumes with no attachment left) has its attachments say what that
 * leaves them, and one written again has those that wait for it say so.
 */
import { sameJson } from '../domain/canonical-json.js';
import { keyOf, keyString, type AttachmentRecord, type ProvisionerRecord, type RecordKey, type VolumeRecord } from '../domain/records.js';
import { parseRecord, systemDefaults } from '../domain/validation.js';
import { METRICS } from '../settings.js';
import { DEFAULT_ENGINE_CONFIG, type EngineConfig } from './config.js';
import { errorMessage } from './errors.js';
import {
  affectedByVolumeRecordRemoval,
  CHECK_OPERATIONS,
  detachesPastInvalidRecord,
  heldByAnotherRecord,
  looksBeforeRemoving,
  looksWhateverOthersHold,
  planAttachment,
  planVolume,
  releasedByVolume,
  removedWithoutLook,
  UNDER_WAY_STATES,
  volumeRecordLost,
  waitsForInvalidVolume,
  waitsForVolumeInUse,
  type Decision,
} from './planner.js';
import { judgeRecord, RECORD_TOO_LARGE_LOG, writeRejection } from './rejection.js';
import { INVALID_RECORD_CODE, invalidRecordStatus, madeDyingStatus, retryRequested, successStatus } from './status.js';
import { changesWithoutCall, markAttachmentsDying, VOLUME_RECORD_REMOVED_LOG } from './without-call.js';
import {
  ConditionFailedError,
  ItemTooLargeError,
  type Clock,
  type Log,
  type Metrics,
  type OperationMessage,
  type OperationQueue,
  type QueuedOperation,
  type RecordChanges,
  type RecordStore,
  unchangedSince,
} from './ports.js';

/** One change of one record, as the table's stream reports it (images are untrusted). */
export interface RecordChange {
  id: string;
  eventName: 'INSERT' | 'MODIFY' | 'REMOVE';
  key: RecordKey;
  oldRecord?: unknown;
  newRecord?: unknown;
}

export interface WatcherDeps {
  store: RecordStore;
  queue: OperationQueue;
  clock: Clock;
  metrics: Metrics;
  log: Log;
  /** Wired like the executor's; the watcher enqueues at once (delay 0) and needs neither today. */
  config?: Partial<EngineConfig>;
  random?: () => number;
}

/** Fields only the client writes; a change in any of them is a request. */
const CLIENT_FIELDS = ['spec', 'life', 'generation', 'requestedDevice', 'forceDetach'] as const;

function field(image: unknown, name: string): unknown {
  return image && typeof image === 'object' ? (image as Record<string, unknown>)[name] : undefined;
}

/** A field the system writes, in an image, as the record parser reads it: its default in an item a client wrote without it. */
function systemField(image: unknown, name: 'version' | 'createdAt'): unknown {
  return image && typeof image === 'object' ? (field(image, name) ?? systemDefaults[name]) : undefined;
}

function stateOf(image: unknown): unknown {
  return field(field(image, 'status'), 'state');
}

/**
 * A volume record as the table holds it (`raw`): `invalid` when it does not parse, undefined when
 * there is none, or when `attachment` detaches past it (`detachesPastInvalidRecord`).
 */
function volumeRecordOf(raw: ProvisionerRecord | undefined, attachment: AttachmentRecord): VolumeRecord | 'invalid' | undefined {
  if (raw === undefined) return undefined;
  const parsed = parseRecord(raw);
  if (!parsed.ok) return detachesPastInvalidRecord(attachment, field(raw, 'createdAt')) ? undefined : 'invalid';
  return parsed.value.kind === 'volume' ? parsed.value : undefined;
}

/** Whether `record` is an attachment that may still hold the EC2 volume of a removed volume record (`volumeRecordLost`), its volume record as read. */
function holdsRemovedRecordsVolume(record: ProvisionerRecord, volume: VolumeRecord | 'invalid' | undefined): boolean {
  return record.kind === 'attachment' && volumeRecordLost(record, volume === 'invalid' ? undefined : volume);
}

/**
 * Whether a volume moving between these states (stream images) changes what its waiting
 * attachments do or say: it was written (again: they wait for it to become available now), became
 * usable (they attach), went into or out of error, let go of its EC2 volume (those attached to it
 * look at EC2), or changed otherwise what an attachment that has attached nothing waits for
 * (`waitOf`): a volume in use being modified is waited for to become available, not to be detached
 * from another instance, and one set back to alive is no longer being deleted. A volume made dying
 * is not one: its own plan makes its live attachments dying.
 */
function movesWaitingAttachments(change: RecordChange): boolean {
  if (change.eventName === 'INSERT' || ebsVolumeReplaced(change)) return true;
  const from = stateOf(change.oldRecord);
  const to = stateOf(change.newRecord);
  if (from !== to && (to === 'available' || to === 'in-use' || to === 'error' || from === 'error')) return true;
  // A record removed is not one changing: its attachments learn of the removal on their own (`affectedByVolumeRecordRemoval`).
  if (change.eventName !== 'MODIFY') return false;
  const waitNow = waitOf(change.newRecord);
  return waitNow !== 'being deleted' && waitNow !== waitOf(change.oldRecord);
}

/**
 * What an attachment that has attached nothing would wait for of the volume in this image, as the
 * planner tells it (`planAttachment`): its deletion, its retry (in error, by code), its becoming
 * available, or its being in use (a detach from another instance). Multi-Attach is not read: it is
 * fixed when the volume is created, so a spec that changes it is rejected and changes nothing EC2
 * allows; releasing the attachments for it would have them attach to a single-attach volume in use.
 */
function waitOf(image: unknown): string {
  const status = field(image, 'status');
  const state = field(status, 'state');
  if (field(image, 'life') === 'dying') return 'being deleted';
  if (state === 'error') return `in error: ${String(field(status, 'code'))}`;
  if (field(image, 'ebsVolumeId') === undefined || (state !== 'available' && state !== 'in-use')) return 'to become available';
  return state;
}

/**
 * Whether the volume record let go of the EC2 volume it held (a check found it gone, and a retry
 * may create another under the same record): whatever was attached to it is no longer.
 */
function ebsVolumeReplaced(change: RecordChange): boolean {
  // A record removed is not one letting go of its volume: its attachments learn of the removal on their own (`affectedByVolumeRecordRemoval`).
  if (change.eventName !== 'MODIFY') return false;
  const from = field(change.oldRecord, 'ebsVolumeId');
  return from !== undefined && from !== field(change.newRecord, 'ebsVolumeId');
}


/**
 * Whether the change leaves a record rejected as invalid valid: its client put it right in the
 * table, perhaps in a field that is not a client's (an attribute the record has no place for
 * removed, a malformed system field dropped). That is its retry, as a change of a client field is.
 */
function putRightInTable(change: RecordChange): boolean {
  return change.newRecord !== undefined && field(field(change.newRecord, 'status'), 'code') === INVALID_RECORD_CODE && parseRecord(change.newRecord).ok;
}

/** Whether the change made the record dying (its client's delete, or its volume's cascade). */
function madeDying(change: RecordChange): boolean {
  return change.oldRecord !== undefined && field(change.oldRecord, 'life') === 'alive' && field(change.newRecord, 'life') === 'dying';
}

/** The live volume states whose operations (a tag change, a modification) go toward the spec as it is now. */
const AT_REST: ReadonlySet<string> = new Set(['available', 'in-use']);

/** Whether the change gave the record another spec. */
function specChanged(change: RecordChange): boolean {
  return change.eventName === 'MODIFY' && change.oldRecord !== undefined && !sameJson(field(change.oldRecord, 'spec'), field(change.newRecord, 'spec'));
}

/**
 * Whether the record's failed attempts are of the operation's run (`status.operationStartedAt`)
 * that the change's image shows: not those of an operation started since, after the change's
 * own handling dropped that run's (a failure from a fresh status starts a run of its own).
 */
function sameRun(change: RecordChange, record: ProvisionerRecord): boolean {
  return sameIncarnation(change, record) && field(field(change.newRecord, 'status'), 'operationStartedAt') === record.status.operationStartedAt;
}

/** Whether the change is one of `record` as read, not of a record removed before it was written again under its key (its `createdAt`). */
function sameIncarnation(change: RecordChange, record: ProvisionerRecord): boolean {
  return systemField(change.newRecord, 'createdAt') === record.createdAt;
}

function clientChanged(change: RecordChange): boolean {
  if (change.eventName !== 'MODIFY' || change.oldRecord === undefined || change.newRecord === undefined) return true;
  return CLIENT_FIELDS.some((name) => !sameJson(field(change.oldRecord, name), field(change.newRecord, name)));
}

/**
 * Whether `record` (as read) is still as its client put it whole into the table (an INSERT of the
 * group), changed since by its client only: no operation of the executor's, whatever its status
 * says, so no chain of checks runs on it. An insert delivered again (a stream batch replayed, late)
 * once the executor has written the record is not one.
 */
function writtenAnew(group: RecordChange[], record: ProvisionerRecord): boolean {
  const inserted = group.map((change) => change.eventName).lastIndexOf('INSERT');
  if (inserted < 0) return false;
  const since = group.slice(inserted + 1);
  const last = group[group.length - 1]!;
  return (
    systemField(last.newRecord, 'version') === record.version &&
    sameIncarnation(last, record) &&
    since.every((change) => sameJson(field(change.oldRecord, 'status'), field(change.newRecord, 'status')) && sameJson(field(change.oldRecord, 'claim'), field(change.newRecord, 'claim')))
  );
}

export class Watcher {
  constructor(private readonly deps: WatcherDeps) {}

  async handle(changes: RecordChange[]): Promise<{ failedChangeIds: string[] }> {
    // Several changes of one record in a batch: the record's current state answers them all.
    const byKey = new Map<string, RecordChange[]>();
    for (const change of changes) {
      const id = keyString(change.key);
      byKey.set(id, [...(byKey.get(id) ?? []), change]);
    }
    const failed: string[] = [];
    for (const group of byKey.values()) {
      const operations: QueuedOperation[] = [];
      try {
        try {
          await this.handleRecord(group, operations);
        } catch (error) {
          if (!(error instanceof ItemTooLargeError)) throw error;
          // Retrying cannot make the record smaller: only its writer can, and that change comes on its own.
          // What was planned for other records before the refused write (a dying attachment's detach) still goes.
          this.tooLarge(group[0]!.key, error);
        }
        if (operations.length > 0) await this.deps.queue.send(operations);
      } catch (error) {
        this.deps.log.error('handling record change failed', { key: keyString(group[0]!.key), error: errorMessage(error) });
        failed.push(...group.map((change) => change.id));
      }
    }
    return { failedChangeIds: failed };
  }

  private async handleRecord(group: RecordChange[], operations: QueuedOperation[]): Promise<void> {
    const key = group[0]!.key;
    const requested = group.some(clientChanged) || group.some(putRightInTable);
    const attachmentsMoved = group.some(movesWaitingAttachments);
    if (!requested && this.settledByImage(group, attachmentsMoved)) return;
    const current = await this.deps.store.get(key);
    const volumeRemoved = key.kind === 'volume' && group.some((change) => change.eventName === 'REMOVE');

    if (!current) {
      // An attachment went away: its volume may be dying and waiting, or no longer in use.
      if (key.kind === 'attachment') await this.replanVolume(key.volumeId, operations);
      else await this.replanAttachmentsOfRemovedVolume(await this.deps.store.attachmentsOfVolume(key.volumeId), undefined, operations);
      return;
    }

    const { record, rejection } = judgeRecord(current, this.deps.clock.now(), this.leaseMs());
    if (!record || rejection !== undefined) {
      // Written again and rejected for a claim or times only: its attachments read it as it is (as the
      // executor and the reconciler do) and learn of the removal all the same. One that does not parse leaves them as they are.
      if (volumeRemoved && record?.kind === 'volume')
        await this.replanAttachmentsOfRemovedVolume(await this.deps.store.attachmentsOfVolume(record.volumeId), record, operations);
      await this.rejectRecord(current, key, rejection!);
      if (key.kind === 'volume') await this.replanAttachmentsOfRejectedVolume(key.volumeId, record?.kind === 'volume' ? record : undefined, rejection!, operations);
      return;
    }

    if (record.kind === 'volume') {
      if (!requested && !attachmentsMoved && !volumeRemoved) return;
      // Read once for all that is planned here: the volume's own plan and what its change means for its attachments.
      const attachments = await this.deps.store.attachmentsOfVolume(record.volumeId);
      // Removed and written again since: attachments may still be attached to the removed record's EC2 volume.
      if (volumeRemoved) await this.replanAttachmentsOfRemovedVolume(attachments, record, operations);
      // A spec EBS cannot reach is the planner's to judge (`invalid-spec`), as for the executor and the reconciler.
      if (requested) await this.planRequest(record, group, operations, attachments);
      if (attachmentsMoved) await this.replanWaitingAttachments(record, attachments, operations, group.some(ebsVolumeReplaced));
      return;
    }

    if (requested) await this.planRequest(record, group, operations);
  }

  /**
   * Whether a change the system made needs nothing from the watcher, judged from its stream image
   * alone (no read of the table): a valid record whose move changes nothing for others (see
   * `movesWaitingAttachments`). Most changes are the executor's own claims, status writes and
   * results.
   */
  private settledByImage(group: RecordChange[], attachmentsMoved: boolean): boolean {
    const last = group[group.length - 1]!;
    const { record, rejection } = judgeRecord(last.newRecord, this.deps.clock.now(), this.leaseMs());
    if (!record || rejection !== undefined) return false;
    return !(record.kind === 'volume' && attachmentsMoved);
  }

  /** A record the table refused a write to for its size: logged and counted, never retried. */
  private tooLarge(key: RecordKey, error: ItemTooLargeError): void {
    this.deps.metrics.count(METRICS.invalidRecords);
    this.deps.log.warn(RECORD_TOO_LARGE_LOG, { key: keyString(key), error: errorMessage(error) });
  }

  /**
   * `apply` for another record than the one whose change is handled (an attachment of a changed
   * volume): a write the table refuses for that record's size is that record's alone, and the
   * change's other work (its own operations, the other attachments) goes on.
   */
  private async applyToOther(record: ProvisionerRecord, decision: Decision, operations: QueuedOperation[]): Promise<void> {
    try {
      await this.apply(record, decision, operations);
    } catch (error) {
      if (!(error instanceof ItemTooLargeError)) throw error;
      this.tooLarge(keyOf(record), error);
    }
  }

  private leaseMs(): number {
    return this.deps.config?.claimLeaseMs ?? DEFAULT_ENGINE_CONFIG.claimLeaseMs;
  }

  /**
   * A client change: a bumped generation on a live record in `error` is a retry, which puts it back
   * to `pending` with its attempts reset before planning; volumes and attachments alike. Each
   * generation is retried once (`retriedGeneration`): a late copy of the change finds it made. A
   * record rejected as invalid that its client put right is taken up the same way. An attachment
   * that may still hold the EC2 volume of a removed volume record is not retried (the API refuses
   * it too): it would attach the record written again beside that volume.
   */
  private async planRequest(
    record: ProvisionerRecord,
    group: RecordChange[],
    operations: QueuedOperation[],
    /** A volume's attachments, when already read. */
    attachments?: AttachmentRecord[],
  ): Promise<void> {
    const generation = record.generation ?? 1;
    // Judged on the record as read, before the writes below.
    const anew = writtenAnew(group, record);
    // An attachment is planned against its volume record: read once, for the retry and the plan.
    const volume = record.kind === 'attachment' ? volumeRecordOf(await this.deps.store.get({ kind: 'volume', volumeId: record.volumeId }), record) : undefined;
    const putRight = record.status.code === INVALID_RECORD_CODE;
    const retried = putRight || (generation > (record.retriedGeneration ?? 0) && this.generationBumped(group, record));
    if (record.status.state === 'error' && record.life === 'alive' && retried && !holdsRemovedRecordsVolume(record, volume)) {
      const written = await this.write(record, retryRequested(record.kind, generation, this.deps.clock.now()) as RecordChanges);
      if (!written) return;
      record = written;
    }
    // Deleted by its client: the live operation's failed attempts are not the delete's or the detach's.
    // A volume at rest given another spec: the failures toward the old one are not those of the tag
    // change or grow toward the new one (which may need no call, and would leave them shown).
    // Only the failures the change found: delivered again or late, it may find those of the operation it started (`sameRun`).
    const now = this.deps.clock.now();
    const found = (asked: (change: RecordChange) => boolean) => group.some((change) => asked(change) && sameRun(change, record));
    const respecified = record.kind === 'volume' && record.life === 'alive' && AT_REST.has(record.status.state) && record.status.attempts > 0 && found(specChanged);
    const droppedStatus = record.life === 'dying' && found(madeDying) ? madeDyingStatus(record.status, now) : respecified ? successStatus(record.status, record.status.state, now) : undefined;
    if (droppedStatus) record = (await this.write(record, { status: droppedStatus } as RecordChanges)) ?? record;
    await this.planAndEnqueue(record, operations, attachments, record.kind === 'attachment' ? { volume } : undefined, anew);
  }

  /**
   * Whether the client bumped `generation` of the record while it was in error (alive): a bump made
   * before (a spec change), delivered late once the record failed, asks for no retry, nor does one
   * of a record removed before `record` was written again under its key. An attachment written
   * before it had one counts as 1.
   */
  private generationBumped(group: RecordChange[], record: ProvisionerRecord): boolean {
    return group.some((change) => {
      if (change.oldRecord === undefined || change.newRecord === undefined || !sameIncarnation(change, record)) return false;
      if (stateOf(change.oldRecord) !== 'error' || field(change.oldRecord, 'life') !== 'alive') return false;
      const generationOf = (image: unknown) => {
        const generation = field(image, 'generation');
        return typeof generation === 'number' ? generation : 1;
      };
      return generationOf(change.newRecord) > generationOf(change.oldRecord);
    });
  }


  /** Writes the rejection of an invalid record (`writeRejection`); one too large to hold it fails with ItemTooLargeError, counted by `handle`. */
  private async rejectRecord(current: ProvisionerRecord, key: RecordKey, reasons: string): Promise<void> {
    await writeRejection(this.deps, current, key, reasons);
  }

  /** Writes `changes` unless the record changed meanwhile (its own change is then handled). */
  private async write(record: ProvisionerRecord, changes: RecordChanges): Promise<ProvisionerRecord | undefined> {
    try {
      return await this.deps.store.update(keyOf(record), changes, unchangedSince(record));
    } catch (error) {
      if (error instanceof ConditionFailedError) return undefined;
      throw error;
    }
  }

  private async planAndEnqueue(
    record: ProvisionerRecord,
    operations: QueuedOperation[],
    attachments?: AttachmentRecord[],
    /** An attachment's volume record, as already read (`volumeRecordOf`). */
    volumeRead?: { volume: VolumeRecord | 'invalid' | undefined },
    /** The record was written anew: no chain of checks runs on it (`apply`). */
    writtenAnew = false,
  ): Promise<void> {
    let decision: Decision;
    if (record.kind === 'volume') {
      decision = planVolume(record, attachments ?? (await this.deps.store.attachmentsOfVolume(record.volumeId)), this.deps.clock.now());
    } else {
      const volume = volumeRead ? volumeRead.volume : volumeRecordOf(await this.deps.store.get({ kind: 'volume', volumeId: record.volumeId }), record);
      if (volume === 'invalid') {
        // Not a removed volume record: the attachment waits as it is until its client puts the record right (whose change brings it here).
        this.deps.log.warn('volume record invalid; its attachment is left as it is until the record is put right', { key: keyString(keyOf(record)) });
        return;
      }
      decision = await this.orLookWhetherAttachedHere(record, volume, planAttachment(record, volume));
    }
    await this.apply(record, decision, operations, writtenAnew);
  }

  /**
   * A wait of `attachment` for its volume in use, when no other attachment record may hold it
   * (`inUseByNoOtherRecord`), becomes a check of whether it is attached here; `decision` otherwise.
   * Without it, an attachment whose volume was attached to its own instance outside the system
   * would wait for a detach no one makes, and, deleted, be removed as never attached, leaving the
   * volume attached. A dying one that never sent AttachVolume looks (`looksBeforeRemoving`) only
   * while no other attachment record may hold its single-attach volume: held by one, it is removed
   * with no EC2 call. A Multi-Attach volume may be attached here whatever others hold: it looks.
   */
  private async orLookWhetherAttachedHere(attachment: AttachmentRecord, volume: VolumeRecord | undefined, decision: Decision): Promise<Decision> {
    if (decision.type === 'operation' && looksBeforeRemoving(attachment, volume))
      return !looksWhateverOthersHold(volume) && heldByAnotherRecord(attachment, await this.deps.store.attachmentsOfVolume(volume.volumeId))
        ? removedWithoutLook(attachment)
        : decision;
    if (decision.type !== 'wait' || !(await this.inUseByNoOtherRecord(attachment, volume))) return decision;
    return { type: 'operation', op: 'check-attachment', reason: `volume ${attachment.volumeId} is in use and no other attachment record holds it: looking whether it is attached here` };
  }

  /**
   * Whether a waiting attachment's single-attach volume is in use though none of its other
   * attachment records may hold it (`heldByAnotherRecord`): attached outside the system, or to this
   * very instance by an attachment record removed straight from the table and written again. A
   * check (one DescribeVolumes) then tells: attached here, the attachment records it; elsewhere, it
   * says so.
   */
  private async inUseByNoOtherRecord(attachment: AttachmentRecord, volume: VolumeRecord | undefined): Promise<boolean> {
    return waitsForVolumeInUse(attachment, volume) && !heldByAnotherRecord(attachment, await this.deps.store.attachmentsOfVolume(volume.volumeId));
  }

  /**
   * Carries out a decision for `record`. The check of an operation under way goes as a look
   * (`OperationMessage.nudge`): the operation's own chain of progress checks is already on the
   * record, and a check that went on with checks of its own would start another chain beside it,
   * one more for each change a client writes while EC2 is at it (a modification may stay
   * `modifying` for hours). The look still moves the record on at once if it finds the operation
   * ended. `writtenAnew`: the record was just put whole into the table, so no chain runs on it.
   */
  private async apply(record: ProvisionerRecord, decision: Decision, operations: QueuedOperation[], writtenAnew = false): Promise<void> {
    const key = keyOf(record);
    switch (decision.type) {
      case 'operation': {
        const message: OperationMessage = { op: decision.op, key, reason: decision.reason };
        if (!writtenAnew && CHECK_OPERATIONS.has(decision.op) && UNDER_WAY_STATES.has(record.status.state)) message.nudge = true;
        operations.push({ message, delaySeconds: 0 });
        return;
      }
      case 'remove':
        // Nothing exists in EC2: remove without any call, unless the record moved on meanwhile.
        try {
          await this.deps.store.remove(key, unchangedSince(record));
          this.deps.log.info('record removed without an EC2 call', { key: keyString(key), reason: decision.reason });
          if (record.kind === 'attachment') await this.replanVolume(record.volumeId, operations);
        } catch (error) {
          if (!(error instanceof ConditionFailedError)) throw error;
        }
        return;
      case 'cooldown':
        // The executor shows the wait in the status when it does not (`changesWithoutCall`) and
        // makes sure a message brings the modification back then (the wait's own, or one it sends).
        operations.push({ message: { op: decision.op, key, reason: decision.reason }, delaySeconds: 0 });
        return;
      case 'cascade-dying':
      case 'wait':
      case 'volume-record-removed':
      case 'invalid-spec':
      case 'none': {
        if (decision.type === 'cascade-dying') await markAttachmentsDying(this.deps.store, decision.attachments);
        const changes = changesWithoutCall(record, decision, this.deps.clock.now());
        if (changes && (await this.write(record, changes)) && decision.type === 'volume-record-removed')
          this.deps.log.warn(VOLUME_RECORD_REMOVED_LOG, { key: keyString(key), reason: decision.reason });
        return;
      }
    }
  }

  /**
   * The volume became available (or in use): its waiting attachments go now, not at their next
   * retry (`releasedByVolume`); one that would wait for its volume in use that no other attachment
   * record holds looks whether it is attached here (`orLookWhetherAttachedHere`). It went into or
   * out of error, or changed otherwise what they wait for (`waitOf`): they say so (a status write
   * only where the reason changes; no EC2 call). It let go of its EC2 volume (`replaced`): those
   * attached to it look at EC2, even when the record holds a new one by now. Attachments under way
   * follow their own operations.
   */
  private async replanWaitingAttachments(volume: VolumeRecord, attachments: AttachmentRecord[], operations: QueuedOperation[], replaced: boolean): Promise<void> {
    for (const attachment of this.acceptedAttachments(attachments)) {
      const released = releasedByVolume(attachment, volume, replaced);
      const decision = released && (await this.orLookWhetherAttachedHere(attachment, volume, released));
      if (decision) await this.applyToOther(attachment, decision, operations);
    }
  }

  /**
   * The volume record was removed from the table (`volume`: written again since, if it was): each
   * attachment says what that leaves it (`affectedByVolumeRecordRemoval`); no EC2 call, since the
   * EC2 volume id went with the record.
   */
  private async replanAttachmentsOfRemovedVolume(attachments: AttachmentRecord[], volume: VolumeRecord | undefined, operations: QueuedOperation[]): Promise<void> {
    for (const attachment of this.acceptedAttachments(attachments)) {
      const decision = affectedByVolumeRecordRemoval(attachment, volume);
      if (decision) await this.applyToOther(attachment, decision, operations);
    }
  }

  /**
   * A volume record rejected as invalid (`volume`: as read, when it parses) is a volume in error:
   * the attachments waiting for it say what they wait for now, rather than what they waited for
   * before (a record not in the table, say). A wait alone is written; until its client puts the
   * record right, nothing else is planned from it here.
   */
  private async replanAttachmentsOfRejectedVolume(volumeId: string, volume: VolumeRecord | undefined, reasons: string, operations: QueuedOperation[]): Promise<void> {
    const rejected = volume && { ...volume, status: invalidRecordStatus(this.deps.clock.now(), reasons) };
    for (const attachment of this.acceptedAttachments(await this.deps.store.attachmentsOfVolume(volumeId))) {
      const decision = rejected ? releasedByVolume(attachment, rejected) : waitsForInvalidVolume(attachment);
      if (decision?.type === 'wait') await this.applyToOther(attachment, decision, operations);
    }
  }

  /**
   * The attachments (as read) planned for themselves here: those `judgeRecord` accepts. One
   * rejected (its form, or a claim or times the system did not write) is not acted on, as its own
   * change is not: its rejection stands until its client puts it right.
   */
  private acceptedAttachments(attachments: readonly AttachmentRecord[]): AttachmentRecord[] {
    return attachments.flatMap((raw) => {
      const { record, rejection } = judgeRecord(raw, this.deps.clock.now(), this.leaseMs());
      return record?.kind === 'attachment' && rejection === undefined ? [record] : [];
    });
  }

  private async replanVolume(volumeId: string, operations: QueuedOperation[]): Promise<void> {
    const raw = await this.deps.store.get({ kind: 'volume', volumeId });
    if (!raw) return;
    // Planned for itself here, not read as an attachment's context: one rejected (a claim or times
    // the system did not write) is not acted on, as its own change is not (no cascade of its dying).
    const { record: volume, rejection } = judgeRecord(raw, this.deps.clock.now(), this.leaseMs());
    if (volume?.kind !== 'volume' || rejection !== undefined) return;
    const decision = planVolume(volume, await this.deps.store.attachmentsOfVolume(volumeId), this.deps.clock.now());
    if ((decision.type === 'none' || decision.type === 'cooldown') && (volume.status.state === 'in-use' || volume.status.state === 'available')) {
      // No attachment change is visible in the record itself: let a check bring in-use/available in line.
      operations.push({ message: { op: 'check-volume', key: { kind: 'volume', volumeId }, reason: 'attachment removed' }, delaySeconds: 0 });
      return;
    }
    const planned = operations.length;
    try {
      await this.apply(volume, decision, operations);
    } catch (error) {
      // The volume's write refused for its size is the volume's (as `applyToOther`), not the removed attachment's.
      if (!(error instanceof ItemTooLargeError)) throw error;
      this.tooLarge(keyOf(volume), error);
    }
    // A look (a check is one already), not the client's change: a retry of the volume's failed operation still waits for its time (`nextAttemptAt`).
    for (const { message } of operations.slice(planned)) if (!CHECK_OPERATIONS.has(message.op)) message.nudge = true;
  }
}
