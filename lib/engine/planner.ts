/**
 * Level-triggered planning: from a record's current state (and the related records it depends
 * on) decide what must happen now. Pure: the same state always gives the same decision, so
 * duplicate, late or out-of-order deliveries cannot change the outcome.
 */
import type {
  AttachmentRecord,
  AttachmentState,
  ProvisionerRecord,
  RecordKey,
  Status,
  VolumeRecord,
  VolumeSpec,
  VolumeState,
} from '../domain/records.js';
import { MODIFICATION_RATE_RULE, MODIFICATIONS_PER_WINDOW, performanceChange } from '../domain/ebs-limits.js';
import { nextAttachmentState, nextVolumeState } from '../domain/state-machines.js';
import { createSentUnrecorded, describeValidationIssues, ebsBaseline, specChangeIssues, tagChanges, validAttachments, type ValidationIssue } from '../domain/validation.js';
import { ACTION_OF, type MutatingAction } from './config.js';
import type { ModifyVolumeRequest, OperationKind, ProviderInstance, ProviderModification } from './ports.js';
import { recordedModificationStarts, windowEndAfter } from './modification-window.js';
import { VOLUME_RECORD_REMOVED_CODE } from './status.js';

export type Decision =
  /** Enqueue / carry out this operation. */
  | { type: 'operation'; op: OperationKind; reason: string }
  /** Nothing exists in EC2 and the client wants it gone: remove the record, no EC2 call. */
  | { type: 'remove'; reason: string }
  /** The volume is dying: these attachments must become dying first (then it waits). */
  | { type: 'cascade-dying'; attachments: RecordKey[]; reason: string }
  /** The spec asks for what EBS cannot make of this volume: no EC2 call, the status says why. */
  | { type: 'invalid-spec'; reason: string }
  /**
   * A prerequisite held by another record; that record's change releases this one.
   * `attemptsEnd`: only a client's retry of that record ends the wait, so the failed attempts of
   * this one's operation no longer count: it starts afresh with that retry.
   */
  | { type: 'wait'; reason: string; attemptsEnd?: true }
  /**
   * EC2 allows `op` only from `atMs` (its limit on modifications, known from the volume record):
   * no call before. The status shows the wait, with a message scheduled for then; whichever
   * status write dropped it, the executor writes both again (`changesWithoutCall`).
   */
  | { type: 'cooldown'; op: OperationKind; atMs: number; reason: string }
  /**
   * A live attachment EC2 may hold attached lost its volume record (`volumeRecordLost`): no EC2
   * call can be made for it; it goes to `error` with the reason (`volumeRecordRemovedStatus`).
   */
  | { type: 'volume-record-removed'; reason: string }
  /**
   * Already where it should be (or terminal). `observedGeneration`: EC2, as it last reported the
   * volume, already holds a spec change (one that asks for what it has), to be recorded without a call.
   */
  | { type: 'none'; reason: string; observedGeneration?: number };

/** Operations that only look at EC2 (progress checks); the rest change something. */
export const CHECK_OPERATIONS: ReadonlySet<OperationKind> = new Set(['check-volume', 'check-attachment']);

/**
 * Record states of an operation EC2 has under way. The executor that writes one keeps a chain of
 * progress checks on the record until the operation ends, and the check that sees it end plans
 * what the record asks for then.
 */
export const UNDER_WAY_STATES: ReadonlySet<string> = new Set(['creating', 'modifying', 'deleting', 'attaching', 'detaching']);

/**
 * Why EBS cannot bring this live volume to its spec (a shrink below what EC2 holds, a field fixed
 * at creation changed…), or undefined. Until the client changes the spec, nothing is asked of EC2
 * for it; a dying volume's spec no longer matters. `issues`: `specChangeIssues(volume)`, when the
 * caller has it already.
 */
export function specRejection(volume: VolumeRecord, issues?: ValidationIssue[]): string | undefined {
  if (volume.life !== 'alive') return undefined;
  const found = issues ?? specChangeIssues(volume);
  return found.length > 0 ? describeValidationIssues(found) : undefined;
}

/**
 * The ModifyVolume request that brings the volume to its spec, or undefined when nothing needs to
 * change or EBS cannot make the change (`specChangeIssues`, or `issues` when the caller has them
 * already): a spec is carried out whole or not at all.
 */
export function modificationNeeded(volume: VolumeRecord, issues?: ValidationIssue[]): ModifyVolumeRequest | undefined {
  const observed = volume.observed;
  if (!observed || !volume.ebsVolumeId) return undefined;
  if ((issues ?? specChangeIssues(volume)).length > 0) return undefined;
  const spec: VolumeSpec = volume.spec;
  const request: ModifyVolumeRequest = { ebsVolumeId: volume.ebsVolumeId };
  let changed = false;
  if (spec.sizeGiB > observed.sizeGiB) {
    request.sizeGiB = spec.sizeGiB;
    changed = true;
  }
  if (spec.volumeType !== observed.volumeType) {
    request.volumeType = spec.volumeType;
    changed = true;
  }
  // A gp3 spec without IOPS or throughput asks for the baseline: clearing a value brings it back there.
  const performance = performanceChange(observed, spec);
  if (performance.iops !== undefined) {
    request.iops = performance.iops;
    changed = true;
  }
  if (performance.throughput !== undefined) {
    request.throughput = performance.throughput;
    changed = true;
  }
  return changed ? request : undefined;
}

/**
 * Until when EC2 refuses a modification of the volume for its rate limit (epoch ms), or undefined:
 * with 4 starts known, 24 hours (and our slack) from the 4th most recent, the record the one source
 * (the status only shows the wait). A start in the future counts as now
 * (`recordedModificationStarts`), so it holds a modification back 24 hours at most; the executor
 * then writes now in its place, which fixes the end. The end may be past: no wait then.
 */
export function modificationCooldownEndMs(volume: VolumeRecord, nowMs: number): number | undefined {
  const starts = recordedModificationStarts(volume, nowMs);
  // Fewer than the count: none to wait for.
  const oldestCounted = starts.at(-MODIFICATIONS_PER_WINDOW);
  return oldestCounted === undefined ? undefined : windowEndAfter(oldestCounted);
}

/**
 * Whether the client tags of the spec differ from those EC2 holds (as last observed; as created
 * for a record written before tags were observed, so an upgrade alone retags nothing), or may
 * differ: a CreateTags whose result is not recorded (`tagKeysSet`) may have set keys the client has
 * dropped since, or values it has put back, so a look is due before the spec is taken as held. Key
 * order does not matter.
 */
export function tagsNeeded(volume: VolumeRecord): boolean {
  if (!volume.ebsVolumeId) return false;
  return tagChanges(ebsBaseline(volume)?.tags, volume.spec.tags) !== undefined || (volume.tagKeysSet?.length ?? 0) > 0;
}

/**
 * Keys a CreateTags whose result is not recorded may have set (`tagKeysSet`) that neither the spec
 * nor the tags last observed name: EC2 may hold them, so a look (and DeleteTags) is due.
 */
function droppedUnrecordedTagKeys(volume: VolumeRecord): string[] {
  const named = { ...ebsBaseline(volume)?.tags, ...volume.spec.tags };
  return (volume.tagKeysSet ?? []).filter((key) => !Object.hasOwn(named, key));
}

/** One EC2 call of a tag change. */
export type TagCall = { action: 'CreateTags'; tags: Record<string, string> } | { action: 'DeleteTags'; keys: string[] };

/**
 * The calls that bring a volume carrying the client tags `held` to `wanted`, in order: DeleteTags
 * for the keys removed, then CreateTags for the keys added or changed (removals first, so that
 * replacing tags never takes the volume past EC2's 50 tags); none when it carries them already.
 * Each takes a rate token of its own action's bucket.
 */
export function tagCalls(held: Readonly<Record<string, string>> | undefined, wanted: Readonly<Record<string, string>> | undefined): TagCall[] {
  const changes = tagChanges(held, wanted);
  if (!changes) return [];
  const calls: TagCall[] = [];
  if (changes.remove.length > 0) calls.push({ action: 'DeleteTags', keys: changes.remove });
  if (Object.keys(changes.set).length > 0) calls.push({ action: 'CreateTags', tags: changes.set });
  return calls;
}

/**
 * The EC2 action whose rate token an operation on `record` takes before the record is claimed:
 * the first call it makes, undefined when it makes none, or when the record asks only for a look
 * (a ModifyVolume or CreateTags whose answer was lost, the spec otherwise held as observed): EC2
 * tells then whether any call is due. A tag change's is judged from the tags the record says EC2
 * holds: one that removes keys (those it observed, or an unrecorded CreateTags may have set) calls
 * DeleteTags first. Its other call (CreateTags after DeleteTags), or one EC2's answer to the look
 * turns out to need, takes its own token when it is made.
 */
export function firstActionOf(op: OperationKind, record: ProvisionerRecord): MutatingAction | undefined {
  if (record.kind === 'volume') {
    if (op === 'tag-volume')
      return droppedUnrecordedTagKeys(record).length > 0 ? 'DeleteTags' : tagCalls(ebsBaseline(record)?.tags, record.spec.tags)[0]?.action;
    if (op === 'modify-volume' && !modificationNeeded(record)) return undefined;
  }
  return ACTION_OF[op];
}

/** Whether nothing on the record says which tags EC2 holds: none observed, no CreateVolume request kept. */
function tagsUnknown(volume: VolumeRecord): boolean {
  return volume.observed?.tags === undefined && volume.createRequest === undefined;
}

/** Whether `modification` takes the volume where `request` asks: it targets every value the request sets. */
export function modificationReaches(modification: ProviderModification, request: ModifyVolumeRequest): boolean {
  return (
    (request.sizeGiB === undefined || modification.targetSizeGiB === request.sizeGiB) &&
    (request.volumeType === undefined || modification.targetVolumeType === request.volumeType) &&
    (request.iops === undefined || modification.targetIops === request.iops) &&
    (request.throughput === undefined || modification.targetThroughput === request.throughput)
  );
}

/**
 * Whether a CreateVolume for the volume may have made a volume whose id the record does not hold:
 * its recorded request (`createRequest`, or the one an earlier version sent without recording it)
 * is then repeated to learn the id, before anything else.
 */
export function createUnanswered(volume: VolumeRecord): boolean {
  return volume.ebsVolumeId === undefined && (volume.createRequest !== undefined || createSentUnrecorded(volume));
}

/** The ends of a dying volume's messages while it waits for its attachments (`cascade-dying`, then `wait`). */
const ATTACHMENTS_BEFORE_DELETING = 'attachment(s) before deleting';
const ATTACHMENTS_TO_DETACH_BEFORE_DELETING = 'attachment(s) to detach before deleting';

/**
 * How many of a dying volume's attachments have or may have something to detach: all but those
 * its planner removes with no EC2 call (detached, or pending or in error without a device: their
 * AttachVolume was never sent), save those that first look whether the volume is attached to
 * their instance outside the system (`looksBeforeRemoving`: its volume may be, and, single-attach,
 * no other record may hold it, `heldByAnotherRecord`, as the watcher judges). Read from the records
 * as the store returns them, which need not be valid (one written into the table without a status
 * counts: nothing shows it never attached).
 */
function attachmentsToDetach(volume: VolumeRecord, attachments: readonly AttachmentRecord[]): number {
  const stateOf = (attachment: AttachmentRecord): unknown => (attachment as { status?: { state?: unknown } }).status?.state;
  const unsent = (attachment: AttachmentRecord): boolean => (stateOf(attachment) === 'pending' || stateOf(attachment) === 'error') && attachment.device === undefined;
  return attachments.filter((attachment) => {
    if (stateOf(attachment) === 'detached') return false;
    if (!unsent(attachment)) return true;
    if (!mayBeAttachedOutside(attachment, volume)) return false;
    return looksWhateverOthersHold(volume) || !heldByAnotherRecord(attachment, attachments);
  }).length;
}

/**
 * Whether an attachment record may hold its volume attached: all but one whose detach is done
 * (`detached`: its AttachVolume was undone), and one pending or in error without a device, whose
 * AttachVolume was never sent (the device is allocated just before).
 */
export function mayHoldItsVolume(attachment: AttachmentRecord): boolean {
  const state = attachment.status.state;
  if (state === 'detached') return false;
  return (state !== 'pending' && state !== 'error') || attachment.device !== undefined;
}

/**
 * Whether an attachment record of the volume for another instance than `attachment`'s may hold it
 * attached (`mayHoldItsVolume`). `records`: the volume's attachment records as the store returns
 * them. One not valid holds nothing here: what it says cannot be relied on until its rejection
 * writes it in error (keeping its device), and the look it leaves an attachment to make (one
 * DescribeVolumes) costs less than removing a dying one without looking where its volume is attached.
 */
export function heldByAnotherRecord(attachment: AttachmentRecord, records: readonly unknown[]): boolean {
  return validAttachments(records).some((other) => other.instanceId !== attachment.instanceId && mayHoldItsVolume(other));
}

/** Whether a volume's status message says it waits, dying, for its attachments before deleting. */
export function saysWaitingForAttachments(status: Status<string>): boolean {
  const message = status.message ?? '';
  return message.endsWith(ATTACHMENTS_BEFORE_DELETING) || message.endsWith(ATTACHMENTS_TO_DETACH_BEFORE_DELETING);
}

/**
 * What a volume needs now (`nowMs`: a modification waiting for EC2's rate limit is not made before
 * it ends). `attachments` are all attachment records of the volume.
 */
export function planVolume(volume: VolumeRecord, attachments: readonly AttachmentRecord[], nowMs: number): Decision {
  const state = volume.status.state;
  const created = volume.ebsVolumeId !== undefined;
  const unanswered = createUnanswered(volume);
  if (state === 'deleted') return { type: 'remove', reason: 'volume deleted' };

  if (volume.life === 'dying') {
    const alive = attachments.filter((attachment) => attachment.life === 'alive');
    // Those that never sent AttachVolume are removed without a detach, unless a look finds the volume attached
    // to their instance outside the system (`looksBeforeRemoving`): the message counts only the others.
    const toDetach = attachmentsToDetach(volume, attachments);
    if (alive.length > 0)
      return {
        type: 'cascade-dying',
        attachments: alive.map((a) => ({ kind: 'attachment', volumeId: a.volumeId, instanceId: a.instanceId })),
        reason: toDetach > 0 ? `detaching ${toDetach} ${ATTACHMENTS_BEFORE_DELETING}` : `removing ${attachments.length} never attached ${ATTACHMENTS_BEFORE_DELETING}`,
      };
    // EC2 still at the volume's modification (or creation): its chain of checks goes on meanwhile,
    // which a wait would end, and sees it end; once done, the volume waits for its attachments.
    if (attachments.length > 0 && created && (state === 'modifying' || state === 'creating'))
      return {
        type: 'operation',
        op: 'check-volume',
        reason: `waiting for the ${state === 'modifying' ? 'modification' : 'creation'} to finish before deleting; ${attachments.length} attachment(s) still to go`,
      };
    if (attachments.length > 0)
      return {
        type: 'wait',
        reason: toDetach > 0 ? `waiting for ${toDetach} ${ATTACHMENTS_TO_DETACH_BEFORE_DELETING}` : `waiting to remove ${attachments.length} never attached ${ATTACHMENTS_BEFORE_DELETING}`,
      };
    // Without the id, repeat the recorded CreateVolume to learn it, then delete.
    const learnId: Decision = { type: 'operation', op: 'create-volume', reason: 'learning the id of a volume a CreateVolume may have made, to delete it' };
    switch (state) {
      case 'pending':
        // Retried after an error: the volume may exist.
        return created
          ? { type: 'operation', op: 'check-volume', reason: 'dying after a retry; looking at the volume before deleting' }
          : unanswered
            ? learnId
            : neverCreated(state);
      case 'creating':
        return created
          ? { type: 'operation', op: 'check-volume', reason: 'waiting for creation to finish before deleting' }
          : unanswered
            ? learnId
            : neverCreated(state);
      case 'available':
        return { type: 'operation', op: 'delete-volume', reason: 'dying and detached' };
      case 'in-use':
        return { type: 'operation', op: 'check-volume', reason: 'dying; waiting for EC2 to report it detached' };
      case 'modifying':
        return { type: 'operation', op: 'check-volume', reason: 'waiting for the modification before deleting' };
      case 'deleting':
        return { type: 'operation', op: 'check-volume', reason: 'deletion in progress' };
      case 'error':
        return created ? { type: 'operation', op: 'delete-volume', reason: 'dying after an error' } : unanswered ? learnId : neverCreated(state);
    }
  }

  switch (state) {
    case 'pending':
      // A volume retried after an error may already exist: look before creating anything.
      if (created) return { type: 'operation', op: 'check-volume', reason: 'retrying; volume exists' };
      return unanswered
        ? { type: 'operation', op: 'create-volume', reason: 'retrying; repeating the unanswered CreateVolume' }
        : { type: 'operation', op: 'create-volume', reason: 'volume requested' };
    case 'creating':
      if (created) return { type: 'operation', op: 'check-volume', reason: 'creation in progress' };
      return unanswered
        ? { type: 'operation', op: 'create-volume', reason: 'creation started; repeating the request with the same token' }
        : { type: 'operation', op: 'create-volume', reason: 'EC2 refused the request; creating afresh' };
    case 'available':
    case 'in-use': {
      // Nothing recorded of what EC2 holds (a record written into the table naming its EC2 volume):
      // the spec would be judged against itself (`ebsBaseline`), every change taken as held. A look records it first.
      if (!volume.observed) return { type: 'operation', op: 'check-volume', reason: `volume ${state}; looking at what EC2 holds, which the record does not say` };
      const issues = specChangeIssues(volume);
      // Tags first: CreateTags/DeleteTags answer at once and have no per-volume limit, while a modification
      // keeps the volume `modifying` for minutes to hours (or waits up to 24 hours for EC2's limit),
      // during which nothing else is done to it. The modification follows when the tags are held.
      // Tags are independent of the size and performance: a spec EBS cannot make holds back only those.
      if (tagsNeeded(volume)) return { type: 'operation', op: 'tag-volume', reason: 'tags changed' };
      const rejected = specRejection(volume, issues);
      if (rejected) return { type: 'invalid-spec', reason: rejected };
      if (modificationNeeded(volume, issues)) {
        // EC2 refuses every ModifyVolume of the volume until then, whatever the spec asks for now.
        const cooldownEnd = modificationCooldownEndMs(volume, nowMs);
        return cooldownEnd !== undefined && cooldownEnd > nowMs
          ? { type: 'cooldown', op: 'modify-volume', atMs: cooldownEnd, reason: `waiting until ${new Date(cooldownEnd).toISOString()}: ${MODIFICATION_RATE_RULE}` }
          : { type: 'operation', op: 'modify-volume', reason: 'spec changed' };
      }
      // A ModifyVolume whose answer was lost may still take EC2 away from what the record observed.
      if (volume.modificationSentAt !== undefined)
        return { type: 'operation', op: 'modify-volume', reason: 'a ModifyVolume whose answer was lost may be under way; looking before taking the spec as held' };
      // A record from before tags were observed and before its CreateVolume request was kept has
      // no record of the tags EC2 holds: once its client changed the spec, look before saying EC2 holds it.
      if (volume.observed && volume.observedGeneration !== volume.generation && tagsUnknown(volume))
        return { type: 'operation', op: 'check-volume', reason: 'spec changed; looking at the tags EC2 holds' };
      return volume.observed && volume.observedGeneration !== volume.generation
        ? { type: 'none', reason: `volume ${state}; EC2 already holds the spec`, observedGeneration: volume.generation }
        : { type: 'none', reason: `volume ${state}` };
    }
    case 'modifying':
      return { type: 'operation', op: 'check-volume', reason: 'modification in progress' };
    case 'deleting':
      return { type: 'operation', op: 'check-volume', reason: 'deletion in progress' };
    case 'error':
      return { type: 'none', reason: 'terminal error' };
  }
}

/**
 * Whether the EC2 volume is Multi-Attach, as it was created (`ebsBaseline`): EBS fixes it then, so
 * a spec asking otherwise afterwards (written into the table; refused, `InvalidSpecChange`) does
 * not make a single-attach volume in use attachable elsewhere, nor the reverse.
 */
function createdMultiAttach(volume: VolumeRecord): boolean {
  return (ebsBaseline(volume) ?? volume.spec).multiAttach === true;
}

/**
 * Whether the volume record allows an attach now; undefined when it does, the reason otherwise.
 * The reason names no passing state of the volume, which changes without the attachment hearing
 * of it; only a volume in error, which waits for its client, is told apart.
 */
function volumeBlocksAttach(volume: VolumeRecord | undefined, attachment: AttachmentRecord): Extract<Decision, { type: 'wait' }> | undefined {
  const wait = (reason: string): Extract<Decision, { type: 'wait' }> => ({ type: 'wait', reason });
  if (!volume)
    return wait(`waiting for volume record ${attachment.volumeId}, which is not in the table (removed from it, or not written yet); deleting this attachment removes it, nothing is attached`);
  if (volume.life === 'dying') return wait(`volume ${attachment.volumeId} is being deleted`);
  if (volume.status.state === 'error')
    // What the attach failed so far was against a volume that must be retried (perhaps one gone from EC2, which the retry replaces).
    return { ...wait(`volume ${attachment.volumeId} is in error: ${volume.status.code ?? 'see its status'}; the attach waits until the volume is retried`), attemptsEnd: true };
  if (!volume.ebsVolumeId || (volume.status.state !== 'available' && volume.status.state !== 'in-use'))
    return wait(`waiting for volume ${attachment.volumeId} to become available`);
  if (volume.status.state === 'in-use' && !createdMultiAttach(volume))
    return wait(`waiting for volume ${attachment.volumeId} to be detached from its other instance`);
  return undefined;
}

/**
 * What a live attachment that has attached nothing (`pending`, no device) says while its volume
 * record is in the table but does not parse (rejected: its status says why), undefined for the
 * others, which are left as they are: nothing is planned against such a record until its client
 * puts it right, whose change releases the attachment.
 */
export function waitsForInvalidVolume(attachment: AttachmentRecord): Extract<Decision, { type: 'wait' }> | undefined {
  if (attachment.life !== 'alive' || attachment.status.state !== 'pending' || attachment.device !== undefined) return undefined;
  return { type: 'wait', reason: `volume record ${attachment.volumeId} is not valid (its status says why); the attach waits until its client puts it right` };
}

/**
 * Whether a live attachment that has attached nothing (`pending`) waits for its single-attach
 * volume, which is in use: attached to another instance, or, its record removed from the table and
 * written again, to this one. A check of the attachment (one DescribeVolumes) tells which.
 */
export function waitsForVolumeInUse(attachment: AttachmentRecord, volume: VolumeRecord | undefined): volume is VolumeRecord {
  return (
    attachment.life === 'alive' &&
    attachment.status.state === 'pending' &&
    volume !== undefined &&
    volume.life === 'alive' &&
    volume.status.state === 'in-use' &&
    !createdMultiAttach(volume) &&
    volume.ebsVolumeId !== undefined
  );
}

/**
 * Whether EC2 may hold the attachment's volume attached: an attach was started or made, or may
 * have taken (a device is kept while it may have).
 */
function mayBeAttached(attachment: AttachmentRecord): boolean {
  const state = attachment.status.state;
  return state === 'attaching' || state === 'attached' || ((state === 'pending' || state === 'error') && attachment.device !== undefined);
}

/**
 * Whether the attachment may be attached to an EC2 volume no volume record holds: its volume
 * record was removed from the table (its status may say so already), or removed and written again
 * since the attachment last changed (a new record, whose volume it never attached: each attach
 * records the `createdAt` of the record it is for, `volumeCreatedAt`, and writes the attachment's
 * status after that record exists, which tells where no attach recorded it). The EC2 volume id
 * went with the removed record: a live attachment is left as it is (the reconciler reports the
 * volume as leaked); a dying one detaches the volumes found by their ownership tags
 * (`planAttachment`).
 */
export function volumeRecordLost(attachment: AttachmentRecord, volume: VolumeRecord | undefined): boolean {
  if (!mayBeAttached(attachment)) return false;
  if (!volume || attachment.status.code === VOLUME_RECORD_REMOVED_CODE) return true;
  return volumeRecordWrittenSince(attachment, volume, attachment.status.updatedAt);
}

/**
 * Whether `volume` is a record written under the attachment's volume id after `since` (ISO-8601),
 * not the one the attachment attached.
 */
export function volumeRecordWrittenSince(attachment: AttachmentRecord, volume: VolumeRecord, since: string): boolean {
  // Its attach recorded the record it was for: that decides, whatever the clocks say (a client
  // writing the table stamps createdAt with its own, which may be behind).
  if (attachment.volumeCreatedAt !== undefined) return attachment.volumeCreatedAt !== volume.createdAt;
  return Date.parse(since) < Date.parse(volume.createdAt);
}

/**
 * Whether a dying attachment's detach is of the EC2 volumes tagged with its volume id (its
 * instance's, found by `findOwnedVolumes`) rather than of its volume record's volume: the record
 * was removed, or removed and written again since its attach (`volumeRecordLost`). A dying
 * attachment is never retried, so an attach it recorded for an earlier record under the id
 * (`volumeCreatedAt`) stays that record's whatever its status says since (a failed detach, say).
 */
export function detachesByTags(attachment: AttachmentRecord, volume: VolumeRecord | undefined): boolean {
  if (volumeRecordLost(attachment, volume)) return true;
  return volume !== undefined && mayBeAttached(attachment) && attachedForEarlierRecord(attachment, volume);
}

/**
 * Whether a dying attachment whose volume record is in the table but does not parse (`createdAt`:
 * as the table holds it) was attached for an earlier record under its id (`volumeCreatedAt`): the
 * record is one written again since, which its detach, of the volumes found by their tags, does
 * not need. That detach goes on as if the record were removed; other attachments of a record that
 * does not parse are left as they are until it is put right.
 */
export function detachesPastInvalidRecord(attachment: AttachmentRecord, createdAt: unknown): boolean {
  return attachment.life === 'dying' && attachment.volumeCreatedAt !== undefined && attachment.volumeCreatedAt !== createdAt;
}

/**
 * Whether an attachment's detach under way is of volumes found by their tags: it is detaching and
 * its volume record was removed, or its attach was recorded for an earlier record under the id
 * (`volumeCreatedAt`), or the record was removed and written again since the detach began (the new
 * record's volume is not the one being detached).
 */
export function detachingByTags(attachment: AttachmentRecord, volume: VolumeRecord | undefined): boolean {
  if (attachment.status.state !== 'detaching') return false;
  if (!volume || attachedForEarlierRecord(attachment, volume)) return true;
  return volumeRecordWrittenSince(attachment, volume, attachment.status.operationStartedAt ?? attachment.status.updatedAt);
}

/** Whether the attachment's attach was recorded (`volumeCreatedAt`) for an earlier volume record under its id than `volume`. */
export function attachedForEarlierRecord(attachment: AttachmentRecord, volume: VolumeRecord): boolean {
  return attachment.volumeCreatedAt !== undefined && attachment.volumeCreatedAt !== volume.createdAt;
}

/**
 * A live attachment in error that kept its device: an attach given up on that EC2 may have made
 * to its volume record's volume (not one whose record was removed: that says so on its own).
 */
export function givenUpWithDevice(attachment: AttachmentRecord, volume: VolumeRecord | undefined): boolean {
  return attachment.life === 'alive' && attachment.status.state === 'error' && attachment.device !== undefined && !volumeRecordLost(attachment, volume);
}

/** Where EC2 may hold the volume of an attachment that lost its volume record. */
function leftAttachedTo(attachment: AttachmentRecord): string {
  return `perhaps still attached to ${attachment.instanceId}${attachment.device ? ` as ${attachment.device}` : ''}`;
}

/** A dying volume no CreateVolume can have made: removed without an EC2 call. */
function neverCreated(state: VolumeState): Decision {
  nextVolumeState(state, 'removed-uncreated');
  return { type: 'remove', reason: 'never created; removed without an EC2 call' };
}

/**
 * Whether an attachment that never sent AttachVolume (pending or in error, no device) may all the
 * same hold its volume attached to its instance, outside the system (in the console, before any
 * check recorded it): when its volume record holds an EC2 volume that the record says is in use,
 * or whose state it does not know (being created or modified, retried, in error); not when the
 * record says available (or being deleted). A Multi-Attach volume in use may be attached to this
 * instance whatever other records hold it.
 */
function mayBeAttachedOutside(attachment: AttachmentRecord, volume: VolumeRecord | undefined): volume is VolumeRecord {
  if ((attachment.status.state !== 'pending' && attachment.status.state !== 'error') || attachment.device !== undefined) return false;
  if (!volume?.ebsVolumeId) return false;
  const state = volume.status.state;
  return state !== 'available' && state !== 'deleting' && state !== 'deleted';
}

/**
 * Whether a dying attachment that never sent AttachVolume (pending or in error, no device) looks at
 * EC2 before it is removed (`planAttachment`): its volume may be attached to its instance all the
 * same, outside the system (`mayBeAttachedOutside`). A look (one DescribeVolumes) that finds it
 * attached there records it, and it is detached as any dying attached attachment; otherwise it is
 * removed. The watcher removes it with no look when its volume is single-attach and another
 * attachment record of the volume may hold it (`heldByAnotherRecord`, `removedWithoutLook`, `looksWhateverOthersHold`).
 */
export function looksBeforeRemoving(attachment: AttachmentRecord, volume: VolumeRecord | undefined): volume is VolumeRecord {
  return attachment.life === 'dying' && mayBeAttachedOutside(attachment, volume);
}

/** Whether a dying attachment's look (`looksBeforeRemoving`) is made even when another attachment record holds its volume: a Multi-Attach volume. */
export function looksWhateverOthersHold(volume: VolumeRecord): boolean {
  return createdMultiAttach(volume);
}

/**
 * What a dying attachment that never sent AttachVolume (no device) comes to: a look first when EC2
 * may hold its volume attached here all the same (`looksBeforeRemoving`), else removed.
 */
function removedOrLookedFirst(attachment: AttachmentRecord, volume: VolumeRecord | undefined): Decision {
  return looksBeforeRemoving(attachment, volume)
    ? { type: 'operation', op: 'check-attachment', reason: `dying; volume ${attachment.volumeId} may be attached to ${attachment.instanceId} outside the system: looking before removing` }
    : removedWithoutLook(attachment);
}

/** What a dying attachment that never sent AttachVolume comes to once no look is made (`looksBeforeRemoving`): removed. */
export function removedWithoutLook(attachment: AttachmentRecord): Decision {
  return neverAttached(attachment.status.state);
}

/** A dying attachment EC2 never saw attach (no device kept): removed without an EC2 call. */
function neverAttached(state: AttachmentState): Decision {
  nextAttachmentState(state, 'removed-unattached');
  return { type: 'remove', reason: 'never attached; removed without an EC2 call' };
}

/**
 * Whether the forced DetachVolume of a detach under way was made and EC2 accepted it: its time is
 * recorded (`forceDetachSentAt`) and the detach's start moved to it with its answer. Recorded with
 * the start still before it, the invocation that wrote it stopped before the call or its answer (a
 * failed call drops the time): it may never have been made, and is made again once that claim is
 * gone (a second after one that took finds the volume detached).
 */
function forcedCallAccepted(attachment: AttachmentRecord): boolean {
  const sentAt = attachment.forceDetachSentAt;
  if (sentAt === undefined) return false;
  const startedAt = attachment.status.operationStartedAt;
  return startedAt === undefined || !(Date.parse(sentAt) > Date.parse(startedAt));
}

/** What an attachment needs now, given its volume record (undefined if it does not exist). */
export function planAttachment(attachment: AttachmentRecord, volume: VolumeRecord | undefined): Decision {
  const state = attachment.status.state;
  if (state === 'detached') return { type: 'remove', reason: 'detached' };
  const lost = volumeRecordLost(attachment, volume);

  if (attachment.life === 'dying') {
    if (detachesByTags(attachment, volume)) {
      // Every volume the system creates carries the record's id as a tag: the executor finds the
      // ones attached to this instance by it and detaches them (none found: removed at once). A
      // record written again since has its new volume among them only if it is attached here too,
      // which no other attachment record could have done: the client asks for none of them here.
      nextAttachmentState(state, 'detach-started');
      return {
        type: 'operation',
        op: 'detach',
        reason: `dying; volume record ${attachment.volumeId} was removed from the table${volume ? ' (and written again since)' : ''}: detaching the EC2 volumes tagged with its id from ${attachment.instanceId}`,
      };
    }
    switch (state) {
      case 'pending':
        // A device recorded on a pending attachment (an attach whose answer was lost, or retried after an error): EC2 may have attached it.
        if (attachment.device) return { type: 'operation', op: 'detach', reason: 'dying with a device kept; may be attached' };
        return removedOrLookedFirst(attachment, volume);
      case 'attaching':
        return { type: 'operation', op: 'check-attachment', reason: 'waiting for the attach before detaching' };
      case 'attached':
        return { type: 'operation', op: 'detach', reason: 'dying' };
      case 'detaching':
        // Force asked for while a detach is under way (one EC2 cannot finish): one forced call, then its
        // checks. A detach of volumes found by their tags is never forced: its checks only.
        if (attachment.forceDetach === true && !forcedCallAccepted(attachment) && !detachingByTags(attachment, volume)) {
          nextAttachmentState(state, 'force-detach-started');
          return { type: 'operation', op: 'detach', reason: 'dying; forcing the detach under way' };
        }
        return { type: 'operation', op: 'check-attachment', reason: 'detach in progress' };
      case 'error':
        // A device is allocated just before AttachVolume: without one, EC2 never saw the attach.
        if (attachment.device) return { type: 'operation', op: 'detach', reason: 'dying after an error' };
        return removedOrLookedFirst(attachment, volume);
    }
  }

  if (lost)
    return {
      type: 'volume-record-removed',
      reason:
        `volume record ${attachment.volumeId} was removed from the table while this attachment may be attached: the EC2 volume it held, if one exists, ` +
        `is left as it is, ${leftAttachedTo(attachment)}, and the reconciler reports it as leaked. Deleting this attachment detaches from ${attachment.instanceId} ` +
        `the EC2 volumes tagged with that id, then removes this record; ` +
        `once it is gone, the volume record written again can be attached`,
    };
  switch (state) {
    case 'pending': {
      // It kept its device (an attach whose answer was lost, or retried after an error): EC2 may
      // have attached it after all, look first.
      if (attachment.device && volume?.ebsVolumeId)
        return { type: 'operation', op: 'check-attachment', reason: 'device kept; may already be attached' };
      return volumeBlocksAttach(volume, attachment) ?? { type: 'operation', op: 'attach', reason: 'volume ready' };
    }
    case 'attaching':
      return { type: 'operation', op: 'check-attachment', reason: 'attach in progress' };
    case 'attached':
      // Its volume record forgot the EC2 volume, which a check found gone: nothing is attached any more.
      return volume && !volume.ebsVolumeId
        ? { type: 'operation', op: 'check-attachment', reason: `volume ${attachment.volumeId} no longer exists in EC2` }
        : { type: 'none', reason: 'attached' };
    case 'detaching':
      return { type: 'operation', op: 'check-attachment', reason: 'detach in progress' };
    case 'error':
      // Phrased to stay true once the volume record is written again.
      return volume
        ? { type: 'none', reason: 'terminal error' }
        : {
            type: 'wait',
            reason: `volume record ${attachment.volumeId} was removed from the table (or not written yet) after this attachment failed; nothing is attached: delete this attachment, or retry it once the volume record is written`,
          };
  }
}

/**
 * What a change of its volume starts for an attachment: a live one that waits for the volume acts
 * now (it attaches once the volume is there, or first looks whether an attach whose answer was
 * lost took, when it kept its device; otherwise it says why it waits), one attached to a volume
 * found gone from EC2 (`ebsVolumeReplaced`: the record let go of it, and may hold a new one by
 * now) leaves `attached`, and one attached to the EC2 volume of a volume record removed since says
 * so (`volume-record-removed`). One whose next attempt is scheduled failed since it last waited,
 * and its own message retries it after its backoff: an operation here would start a second chain
 * of retries beside it. Undefined for the others: attachments under way, dying or in error follow
 * their own operations.
 */
export function releasedByVolume(attachment: AttachmentRecord, volume: VolumeRecord, ebsVolumeReplaced = false): Decision | undefined {
  if (attachment.life !== 'alive' || (attachment.status.state !== 'pending' && attachment.status.state !== 'attached')) return undefined;
  if (ebsVolumeReplaced && attachment.status.state === 'attached')
    return { type: 'operation', op: 'check-attachment', reason: `volume record ${attachment.volumeId} let go of the EC2 volume this attachment was made to` };
  const decision = planAttachment(attachment, volume);
  if (decision.type === 'wait' || decision.type === 'volume-record-removed') return decision;
  return decision.type === 'operation' && attachment.status.nextAttemptAt === undefined ? decision : undefined;
}

/**
 * What the removal of its volume record from the table starts for an attachment (`volume`: the
 * record as it is now, if it was written again since): one EC2 may hold attached says that nothing
 * looks after it any more, or, if dying, detaches the volumes tagged with the record's id (also
 * when the record was written again); one that waits says what for now; one dying that never reached
 * EC2 is removed. Undefined for the others, which follow their own operations.
 */
export function affectedByVolumeRecordRemoval(attachment: AttachmentRecord, volume: VolumeRecord | undefined): Decision | undefined {
  const decision = planAttachment(attachment, volume);
  if (decision.type === 'operation') return attachment.life === 'dying' && decision.op === 'detach' ? decision : undefined;
  return decision.type === 'volume-record-removed' || decision.type === 'wait' || decision.type === 'remove' ? decision : undefined;
}

export type Prerequisite = { ok: true } | { ok: false; code: string; message: string; terminal: boolean };

/**
 * What EC2 needs before AttachVolume: the instance exists and is running or stopped, in the
 * volume's AZ. A missing or starting instance is worth waiting for; a wrong AZ or a terminated
 * instance is not.
 */
export function attachPrerequisites(volume: VolumeRecord, instance: ProviderInstance | undefined, instanceId: string): Prerequisite {
  if (!instance)
    return { ok: false, code: 'InvalidInstanceID.NotFound', message: `instance ${instanceId} not found`, terminal: false };
  if (instance.state === 'terminated' || instance.state === 'shutting-down')
    return { ok: false, code: 'IncorrectInstanceState', message: `instance ${instanceId} is ${instance.state}`, terminal: true };
  if (instance.state !== 'running' && instance.state !== 'stopped')
    return { ok: false, code: 'IncorrectInstanceState', message: `instance ${instanceId} is ${instance.state}`, terminal: false };
  if (volume.availabilityZone !== undefined && volume.availabilityZone !== instance.availabilityZone)
    return {
      ok: false,
      code: 'InvalidVolume.ZoneMismatch',
      message: `volume is in ${volume.availabilityZone}, instance ${instanceId} in ${instance.availabilityZone}`,
      terminal: true,
    };
  return { ok: true };
}
