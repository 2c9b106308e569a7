/**
 * The executor's progress checks: what a look at EC2 (this batch's describes) means for a volume
 * or attachment record, as the `Result` to write, and what a volume record says of the EC2 volume
 * it observes. A check makes no mutating call and takes no claim (`Item.observer`). The look an
 * operation takes at its volume before a call (`describedVolume`) is judged here too.
 */
import {
  keyOf,
  type AttachmentRecord,
  type AttachmentState,
  type ModificationTarget,
  type ProvisionerRecord,
  type Status,
  type VolumeRecord,
  type VolumeSpec,
  type VolumeState,
} from '../../domain/records.js';
import { sameJson } from '../../domain/canonical-json.js';
import { nextAttachmentState, nextVolumeState, type VolumeEvent } from '../../domain/state-machines.js';
import { managedTagsOf, specChangeIssues } from '../../domain/validation.js';
import type { ClassifiedError } from '../errors.js';
import { attachedForEarlierRecord, detachingByTags, modificationNeeded, planAttachment, planVolume, specRejection, tagsNeeded } from '../planner.js';
import type { ProviderModification, ProviderVolume, RecordChanges } from '../ports.js';
import { budgetSpent } from '../schedule.js';
import { ATTACHMENT_NOT_DETACHED_CODE, attemptStatus, EC2_TIME_SLACK_MS, MODIFICATION_FAILED_CODE, VOLUME_NOT_DELETED_CODE, failureStatus, operationStartMs, specRejectedStatus, successStatus, underWayStatus } from '../status.js';
import { latestModificationFailed } from '../modification-window.js';
import { changesWithoutCall } from '../without-call.js';
import type { ExecutorContext } from './context.js';
import type { Result, Item } from './item.js';
import { volumeCheck, messageAt } from './follow-ups.js';
import {
  FORGET_VOLUME,
  volumeErrorMessage,
  attachedOutside,
  volumeTerminal,
  dyingTerminal,
  attachmentTerminal,
  modificationLookFailure,
  volumeFailure,
  attachmentFailure,
} from './results.js';
import { volumeOwnership, volumeOfAnotherRecord } from './ownership.js';

/** What follows for a dying record whose EC2 volume is gone: no retry comes (a dying record has none), the record goes. */
const NOTHING_TO_DELETE = 'nothing is left to delete';

/**
 * Why a volume EC2 accepted and then removed before it was ever available is gone. EBS does that
 * when it cannot use the volume's KMS key (disabled, pending deletion, or not allowed to the
 * executor by IAM or the key policy), which CreateVolume's answer does not say: the message names
 * the likely cause rather than only the missing id.
 */
function removedWhileCreatingMessage(volume: VolumeRecord): string {
  const { kmsKeyId, encrypted } = volume.spec;
  const key = kmsKeyId ? `its KMS key ${kmsKeyId}` : encrypted ? "its KMS key (the account's default for EBS, or the snapshot's)" : undefined;
  const cause = key
    ? `; EBS does this when it cannot use ${key}: disabled, pending deletion, or not allowed to this deployment (the stack's kmsKeyArn option, the key policy)`
    : '; EBS does this when it cannot use the KMS key of a volume encrypted by default (the account\'s default key, or the snapshot\'s): disabled, pending deletion, or not allowed to this deployment';
  return `EC2 removed volume ${volume.ebsVolumeId} while creating it${cause}; ${volume.life === 'dying' ? NOTHING_TO_DELETE : 'a retry creates a new volume'}`;
}

/**
 * `status` of an attachment a check found with nothing attached, or, when the planner finds it
 * waiting on `volume`, that wait (as no message follows a wait to say it).
 */
function waitShown(attachment: AttachmentRecord, status: Status<AttachmentState>, volume: VolumeRecord, now: number): Status<AttachmentState> {
  const notAttached: AttachmentRecord = { ...attachment, status, device: undefined };
  const decision = planAttachment(notAttached, volume);
  return decision.type === 'wait' ? (changesWithoutCall(notAttached, decision, now)?.status ?? status) : status;
}

/** Whether EC2 shows `volume` attached to the instance (attaching, attached, busy or detaching). */
export function attachedTo(volume: ProviderVolume, instanceId: string): boolean {
  return volume.attachments.some((a) => a.instanceId === instanceId && a.state !== 'detached');
}

/** Whether EC2 started `modification` at `startedAtMs` or later (it cannot tell without a start time: then yes). */
function startedSince(modification: ProviderModification, startedAtMs: number): boolean {
  return modification.startedAt === undefined || modification.startedAt >= startedAtMs - EC2_TIME_SLACK_MS;
}

/** What of a spec a ModifyVolume brings EBS to: failed modifications are counted per target. */
function modificationTargetOf(spec: VolumeSpec): ModificationTarget {
  const { sizeGiB, volumeType, iops, throughput } = spec;
  return { sizeGiB, volumeType, ...(iops !== undefined ? { iops } : {}), ...(throughput !== undefined ? { throughput } : {}) };
}

/** What EC2 holds of `record`'s volume: size, performance and the client tags the system manages there. */
export function observedOf(record: VolumeRecord, volume: ProviderVolume): NonNullable<VolumeRecord['observed']> {
  const observed: NonNullable<VolumeRecord['observed']> = { sizeGiB: volume.sizeGiB, volumeType: volume.volumeType };
  if (volume.iops !== undefined) observed.iops = volume.iops;
  if (volume.throughput !== undefined) observed.throughput = volume.throughput;
  observed.tags = managedTagsOf(record, volume.tags);
  return observed;
}

/** `record` as it reads once `changes` are written (a null removes the field). */
function withChanges<R extends ProvisionerRecord>(record: R, changes: RecordChanges<R>): R {
  const written: Record<string, unknown> = { ...record };
  for (const [field, value] of Object.entries(changes)) {
    if (value === null) delete written[field];
    else if (value !== undefined) written[field] = value;
  }
  return written as R;
}

/** The AZ EC2 reports for a volume, to record; none when it reports none (some emulators), so the AZ asked for stays. */
export function zoneOf(volume: ProviderVolume): Pick<RecordChanges<VolumeRecord>, 'availabilityZone'> {
  return volume.availabilityZone ? { availabilityZone: volume.availabilityZone } : {};
}

/**
 * The volume as this batch's DescribeVolumes saw it, before a call that changes it; undefined,
 * with the item's result set, when the describe failed, the volume is gone from EC2 (or being
 * deleted), or EC2 reports it in state `error` (as a check of it would say).
 */
export function describedVolume(ctx: ExecutorContext, item: Item, now: number, volumes: Map<string, ProviderVolume> | ClassifiedError): ProviderVolume | undefined {
  const volume = item.record as VolumeRecord;
  if (!(volumes instanceof Map)) {
    item.result = volumeFailure(ctx, volume, now, volumes);
    return undefined;
  }
  const listed = volumes.get(volume.ebsVolumeId!);
  // One EC2 is deleting (deleted outside) is as gone as one it no longer lists, as for a check (`checkVolume`).
  const current = listed?.state === 'deleting' || listed?.state === 'deleted' ? undefined : listed;
  if (!current) item.result = volumeVanished(volume, 'observed-deleted', now);
  const ownership = volumeOwnership(ctx, volume, volumes);
  if (ownership.kind === 'another') {
    item.result = volumeOfAnotherRecord(ctx, item, now, ownership.owner);
    return undefined;
  }
  // Its storage failed: no call changes that (EC2 only refuses, IncorrectState), the status says what does.
  if (current?.state === 'error') {
    item.result = volumeTerminal(volume, now, 'VolumeError', volumeErrorMessage(current.ebsVolumeId));
    return undefined;
  }
  return current;
}

export function checkVolume(
  ctx: ExecutorContext,
  item: Item,
  now: number,
  volumes: Map<string, ProviderVolume> | ClassifiedError,
  modifications: Map<string, ProviderModification> | ClassifiedError,
): Result {
  const volume = item.record as VolumeRecord;
  const state = volume.status.state;
  if (!(volumes instanceof Map)) {
    // A look at a live volume at rest is no attempt of anything, as for an attachment at rest:
    // counted, a long EC2 outage would end a healthy volume in error. The next look (the reconciler's) comes on its own.
    if (volume.life === 'alive' && (state === 'available' || state === 'in-use')) return { outcome: 'skipped' };
    return state === 'modifying' ? modificationLookFailure(ctx, volume, now, volumes) : volumeFailure(ctx, volume, now, volumes);
  }
  // Every check of a volume is of one that names its EC2 volume (`planVolume`; the table's records are validated so).
  const listed = volumes.get(volume.ebsVolumeId!);
  // One EC2 is deleting that the record does not delete (deleted outside) is as gone as one EC2 no longer lists.
  const current = state === 'deleting' || (listed?.state !== 'deleting' && listed?.state !== 'deleted') ? listed : undefined;
  const ownership = volumeOwnership(ctx, volume, volumes);
  if (ownership.kind === 'another') return volumeOfAnotherRecord(ctx, item, now, ownership.owner);

  if (state === 'deleting') {
    if (!current || current.state === 'deleted') {
      // Set back to alive (straight in the table) while EC2 deleted it: the record stays, in error,
      // as creating a volume again silently would not give back what was asked for.
      if (volume.life === 'alive') return volumeVanished(volume, 'deleted-while-wanted', now);
      nextVolumeState('deleting', 'observed-deleted');
      return { outcome: 'succeeded', remove: true };
    }
    // EBS failed the volume instead of deleting it: DeleteVolume again, after the longest backoff (an error volume may be deleted).
    // Set back to alive, no delete comes: in error, as a live volume EC2 reports failed.
    if (current.state === 'error')
      return volume.life === 'dying'
        ? dyingTerminal(ctx, volume, now, 'VolumeError', `EC2 reports volume ${current.ebsVolumeId} in state error instead of deleted`)
        : volumeTerminal(volume, now, 'VolumeError', volumeErrorMessage(current.ebsVolumeId));
    // EC2 moves a volume to `deleting` as it accepts DeleteVolume: one it still lists at rest once a
    // describe no longer lags was not deleted (a record written as deleting, a delete that did not take).
    if ((current.state === 'available' || current.state === 'in-use') && !describeMayLag(ctx, volume.status, now)) return deleteNotTaken(ctx, volume, current, now);
    return stillInProgress(ctx, volume, now, `deleting ${volume.ebsVolumeId}`);
  }
  if (!current) {
    const started = operationStartMs(volume.status) ?? now;
    if (state === 'creating' && now - started < ctx.config.describeGraceMs)
      return stillInProgress(ctx, volume, now, `waiting for ${volume.ebsVolumeId} to appear`);
    if (state === 'pending') {
      // Retried, or dying after a retry, and the volume is gone: alive, a new one is created (by the client's retry, under a new token).
      const message = `volume ${volume.ebsVolumeId} no longer exists in EC2${volume.life === 'alive' ? '; creating a new, empty volume' : ''}`;
      return { outcome: 'succeeded', changes: { ...FORGET_VOLUME, status: successStatus(volume.status, 'pending', now, message) } };
    }
    return volumeVanished(volume, state === 'creating' ? 'failed' : 'observed-deleted', now);
  }
  if (current.state === 'error') return volumeTerminal(volume, now, 'VolumeError', volumeErrorMessage(current.ebsVolumeId, volume.life === 'dying'));
  if (state === 'creating' || state === 'pending') {
    if (current.state === 'creating') return stillInProgress(ctx, volume, now, `creating ${current.ebsVolumeId}`);
    return { outcome: 'succeeded', changes: observedChanges(volume, current, now) };
  }
  if (state === 'modifying') {
    if (!(modifications instanceof Map)) return modificationLookFailure(ctx, volume, now, modifications);
    const started = operationStartMs(volume.status) ?? now;
    // EC2 lists a modification a little after accepting it; until then it lists the one before,
    // if any, which says nothing of this one.
    const listed = modifications.get(current.ebsVolumeId);
    const modification = listed && startedSince(listed, started) ? listed : undefined;
    // EC2 lists it under way: no age limit, as for the waits of modifications (a modification always
    // ends, and a performance change may stay `modifying` for hours): given up on, the record would say
    // `error` while EC2 goes on to make it, and stay there once it has. Seen under way, it also ends a
    // run of failed looks (`modificationLookFailure`), the only attempts a modification EC2 accepted
    // has: looks that fail now and then over its hours do not add up.
    if (modification?.state === 'modifying')
      return { outcome: 'in-progress', changes: { status: successStatus(volume.status, volume.status.state, now, 'modification in progress') } };
    if (!modification && now - started < ctx.config.describeGraceMs)
      return stillInProgress(ctx, volume, now, `waiting for the modification of ${current.ebsVolumeId} to appear`);
    const changes = observedChanges(volume, current, now);
    if (modification?.state === 'failed') {
      // Counted per target on the record, not from the status, which a throttled call, a wait or a
      // change of tags between them rewrites: a change EC2 accepts and fails every time ends at the budget.
      const target = modificationTargetOf(volume.spec);
      const earlier = volume.failedModifications && sameJson(volume.failedModifications.target, target) ? volume.failedModifications.count : 0;
      const counted = { ...latestModificationFailed(volume, now), failedModifications: { target, count: earlier + 1 } };
      // Dying, its spec no longer matters: no retry of it, no backoff or give-up holding back the delete.
      if (volume.life === 'dying') return { outcome: 'succeeded', changes: { ...changes, ...counted } };
      // The hours EC2 spent making it are no part of the operation's age (it is never given up on
      // while `modifying`): the retry's age counts from the failure, its attempts bound it.
      const { operationStartedAt: _made, ...withoutStart } = volume.status;
      const failed = volumeFailure(ctx, { ...volume, status: { ...withoutStart, attempts: Math.max(volume.status.attempts, earlier) } }, now, {
        outcome: 'retry',
        code: MODIFICATION_FAILED_CODE,
        message: modification.statusMessage ?? 'EC2 reports the modification failed',
      });
      const settled = (changes.status as Status<VolumeState>).state;
      const status = failed.changes?.status as Status<VolumeState>;
      // A failed modification does not count toward EC2's limit: the retry need not wait for it.
      return {
        ...failed,
        changes: {
          ...changes,
          status: status.state === 'error' ? status : { ...status, state: settled },
          ...counted,
        },
      };
    }
    return { outcome: 'succeeded', changes };
  }
  if (state === 'in-use' && current.state === 'in-use' && volume.life === 'dying') return attachedOutside(ctx, volume, current, now);
  // Resting states: bring the record in line with EC2.
  return { outcome: 'succeeded', changes: observedChanges(volume, current, now) };
}

export function checkAttachment(ctx: ExecutorContext, item: Item, now: number, volumes: Map<string, ProviderVolume> | ClassifiedError): Result {
  const attachment = item.record as AttachmentRecord;
  const state = attachment.status.state;
  if (!(volumes instanceof Map)) {
    // A look at an attachment at rest (attached, or in error with no attempts left) is no attempt
    // of anything: the next look (the reconciler's) comes on its own.
    return state === 'error' || state === 'attached' ? { outcome: 'skipped' } : attachmentFailure(ctx, attachment, now, 'Describe', volumes);
  }
  if (detachingByTags(attachment, item.volume)) {
    // Its volume record was removed (and perhaps written again since): the volumes its detach found by their tags, looked for again.
    const found = item.orphans ?? [];
    if (!Array.isArray(found)) return attachmentFailure(ctx, attachment, now, 'Describe', found);
    if (found.some((volume) => attachedTo(volume, attachment.instanceId))) {
      // As for the detach of its volume record's volume (`detachNotTaken`): one EC2 still lists attached
      // (or attaching) here once a describe no longer lags the call was not detached, and a dying record
      // detaches it again after a backoff rather than waiting for the age limit. Only while the record
      // still detaches by its tags once it says attached (its volume record absent, or written again for
      // another), never the volume of a record written again.
      const notDetached = found.filter((volume) => volume.attachments.some((a) => a.instanceId === attachment.instanceId && (a.state === 'attached' || a.state === 'attaching')));
      const byTagsStill = !item.volume || attachedForEarlierRecord(attachment, item.volume);
      if (attachment.life === 'dying' && notDetached.length > 0 && byTagsStill && !describeMayLag(ctx, attachment.status, now))
        return orphanDetachNotTaken(ctx, attachment, notDetached, now);
      return stillInProgress(ctx, attachment, now, `detaching from ${attachment.instanceId}`);
    }
    if (attachment.life === 'alive') {
      // Set back to alive (straight in the table) during the detach: kept, as any attachment set
      // back so, and planned as one with nothing attached: it waits for its volume record, or
      // attaches the one written again (whose volume is not the one detached).
      const notAttached: AttachmentRecord = {
        ...attachment,
        status: successStatus(attachment.status, nextAttachmentState('detaching', 'detached-while-wanted'), now, 'detached; attaching again: the record was set back to alive during the detach'),
        device: undefined,
      };
      const decision = planAttachment(notAttached, item.volume);
      const status = decision.type === 'wait' ? (changesWithoutCall(notAttached, decision, now)?.status ?? notAttached.status) : notAttached.status;
      return { outcome: 'succeeded', changes: { status, device: null, ...(attachment.forceDetachSentAt !== undefined ? { forceDetachSentAt: null } : {}) } };
    }
    nextAttachmentState('detaching', 'observed-detached');
    return { outcome: 'succeeded', remove: true };
  }
  const current = item.volume?.ebsVolumeId ? volumes.get(item.volume.ebsVolumeId) : undefined;
  const link = current?.attachments.find((a) => a.instanceId === attachment.instanceId);
  const present = link !== undefined && link.state !== 'detached';

  if (state === 'detaching') {
    if (!present && attachment.life === 'alive') {
      // Set back to alive (straight in the table) while EC2 detached it: as a client's change during
      // any operation, carried out once EC2 is done. The record stays and attaches again (once its volume allows).
      const message = 'detached; attaching again: the record was set back to alive during the detach';
      const detached = successStatus(attachment.status, nextAttachmentState('detaching', 'detached-while-wanted'), now, message);
      // Its volume record in error waits for its client's retry, and no attach comes before it: the status says that wait.
      const status = item.volume?.status.state === 'error' ? waitShown(attachment, detached, item.volume, now) : detached;
      return {
        outcome: 'succeeded',
        changes: {
          status,
          device: null,
          ...(attachment.forceDetachSentAt !== undefined ? { forceDetachSentAt: null } : {}),
        },
        alsoCheck: volumeCheck(attachment),
        volumeSeen: current,
      };
    }
    if (!present) {
      nextAttachmentState('detaching', 'observed-detached');
      return { outcome: 'succeeded', remove: true, alsoCheck: volumeCheck(attachment), volumeSeen: current };
    }
    // EC2 moves an attachment to `detaching` as it accepts DetachVolume: one it still lists attached once a
    // describe no longer lags was not detached (a record written as detaching, a detach that did not take),
    // and one it lists attaching was detached and attached again outside: either way nothing detaches it.
    if ((link?.state === 'attached' || link?.state === 'attaching') && !describeMayLag(ctx, attachment.status, now)) return detachNotTaken(ctx, attachment, current!, link, now);
    return stillInProgress(ctx, attachment, now, `detaching from ${attachment.instanceId}`);
  }
  if (state === 'pending') {
    // It kept its device (an attach whose answer was lost, or retried after an error), so EC2 may
    // have attached it: adopt an attach EC2 finished after all, else attach afresh. Until one
    // succeeds, the failed attempts and the operation's start stay, so the budget still ends it.
    if (link && (link.state === 'attached' || link.state === 'busy')) {
      return {
        outcome: 'succeeded',
        changes: { status: successStatus(attachment.status, nextAttachmentState('pending', 'observed-attached'), now), device: link.device },
        alsoCheck: volumeCheck(attachment),
        volumeSeen: current,
      };
    }
    if (link?.state === 'attaching') return stillInProgress(ctx, attachment, now, `EC2 is attaching as ${link.device}`);
    // Attached after all and being detached (outside, or a describe that lags an earlier detach):
    // EC2 attaches no volume still detaching from the instance, so it is looked at again until it is detached.
    if (link?.state === 'detaching') return stillInProgress(ctx, attachment, now, `EC2 is detaching it from ${attachment.instanceId}; attaching afresh once it is detached`);
    if (attachment.life === 'dying' && attachment.device === undefined) {
      // Dying, it never sent AttachVolume and looked only in case its volume was attached here
      // outside the system (`looksBeforeRemoving`): it is not, so nothing is left to detach.
      nextAttachmentState('pending', 'removed-unattached');
      return { outcome: 'succeeded', remove: true };
    }
    const status = attemptStatus(attachment.status, 'pending', now, 'not attached; attaching afresh');
    // Unless its volume is taken (attached to another instance, say): then it says what it waits for, as no message follows a wait.
    // Judged on the volume as this describe shows it: a volume record that still says in use (or
    // available) while EC2 says otherwise is brought in line beside (`volumeSeen`), so neither the
    // wait nor the attach that follows rests on a state EC2 no longer holds.
    const notAttached: AttachmentRecord = { ...attachment, status, device: undefined };
    const stale = item.volume !== undefined && current !== undefined && volumeInLineByCheck(item.volume, current, now) && item.volume.status.state !== current.state;
    const volume = stale ? { ...item.volume!, status: { ...item.volume!.status, state: current!.state as VolumeState } } : item.volume;
    const decision = planAttachment(notAttached, volume);
    return {
      outcome: 'succeeded',
      changes: { status: decision.type === 'wait' ? (changesWithoutCall(notAttached, decision, now)?.status ?? status) : status, device: null },
      ...(stale ? { alsoCheck: volumeCheck(attachment), volumeSeen: current } : {}),
    };
  }
  if (state === 'attaching') {
    if (link && (link.state === 'attached' || link.state === 'busy')) {
      return {
        outcome: 'succeeded',
        changes: {
          status: successStatus(attachment.status, nextAttachmentState('attaching', 'observed-attached'), now),
          device: link.device,
        },
        alsoCheck: volumeCheck(attachment),
        volumeSeen: current,
      };
    }
    if (link?.state === 'attaching') return stillInProgress(ctx, attachment, now, `attaching as ${link.device}`);
    // An attachment EC2 still lists as detached holds the volume nowhere.
    const elsewhere = current?.attachments.filter((a) => a.instanceId !== attachment.instanceId && a.state !== 'detached').map((a) => a.instanceId) ?? [];
    // A describe may lag the AttachVolume EC2 accepted (its `operationStartedAt`): within the grace, look again.
    // One that still lists this instance's earlier attachment as detached, or detaching (EC2 attaches
    // no volume still detaching from the instance), lags it as much as one that lists none.
    // Attached elsewhere, a single-attach volume cannot be attached here too; a Multi-Attach one can.
    const acceptedAt = operationStartMs(attachment.status) ?? now;
    const detachingHere = link?.state === 'detaching';
    if (current && (!present || detachingHere) && (elsewhere.length === 0 || current.multiAttach) && now - acceptedAt < ctx.config.describeGraceMs)
      return stillInProgress(ctx, attachment, now, `attaching as ${attachment.device ?? 'its device'}; EC2 does not list the attachment yet`);
    if (current && !present && elsewhere.length > 0 && !current.multiAttach && item.volume) {
      // The single-attach volume is attached to another instance (outside the system, or by another
      // attachment first): the volume record learns it is in use from this answer, and the attach
      // waits for it to be detached, as it would have had the record said so, instead of retrying
      // an AttachVolume EC2 refuses until its attempts run out. A describe that lags a detach there
      // and this attach after it would leave it waiting while attached here: it looks once more
      // when a describe no longer lags.
      const notAttached: AttachmentRecord = { ...attachment, status: attemptStatus(attachment.status, nextAttachmentState('attaching', 'observed-detached'), now, 'not attached'), device: undefined };
      const decision = planAttachment(notAttached, { ...item.volume, status: { ...item.volume.status, state: 'in-use' } });
      if (decision.type === 'wait')
        return {
          outcome: 'succeeded',
          changes: { status: changesWithoutCall(notAttached, decision, now)?.status ?? notAttached.status, device: null },
          alsoCheck: [
            ...volumeCheck(attachment),
            messageAt(ctx, 'check-attachment', keyOf(attachment), 'the volume was seen attached to another instance right after the attach: looking once more', now, acceptedAt + ctx.config.describeGraceMs),
          ],
          volumeSeen: current,
        };
    }
    // Attached elsewhere is why the attach did not take only for a single-attach volume: a Multi-Attach one may be attached there too.
    const instead = current && !current.multiAttach ? elsewhere : [];
    return attachmentFailure(ctx, attachment, now, 'AttachVolume', {
      outcome: 'retry',
      code: !current ? 'InvalidVolume.NotFound' : detachingHere && instead.length === 0 ? 'AttachmentDetaching' : 'AttachmentNotFound',
      message: !current
        ? `volume ${item.volume?.ebsVolumeId ?? attachment.volumeId} not found`
        : instead.length > 0
          ? `volume is attached to ${instead.join(', ')} instead`
          : detachingHere
            ? `EC2 shows ${current.ebsVolumeId} detaching from ${attachment.instanceId} (detached outside the provisioner)`
            : 'the attach did not take',
    }, 'observed-detached');
  }
  if (state === 'error') return givenUpSeen(ctx, attachment, now, current, link);
  if (state === 'attached' && (link?.state === 'attached' || link?.state === 'busy') && link.device !== '' && link.device !== attachment.device) {
    // Detached and attached again outside under another name before a check saw it: the record names the device the instance has.
    return {
      outcome: 'succeeded',
      changes: { status: successStatus(attachment.status, 'attached', now, `EC2 shows it attached as ${link.device} (attached again outside the provisioner)`), device: link.device },
    };
  }
  if (state === 'attached' && (link?.state === 'attached' || link?.state === 'busy') && (attachment.status.code !== undefined || attachment.status.nextAttemptAt !== undefined)) {
    // Attached as recorded, under a status that still names a failed look: the failure is over.
    return { outcome: 'succeeded', changes: { status: successStatus(attachment.status, 'attached', now) } };
  }
  if (state === 'attached' && !present && item.volume) {
    // The volume record holds no EC2 volume once a check of the volume found it gone.
    const ebsVolumeId = item.volume.ebsVolumeId;
    // A describe may lag a fresh attach; one that has stood a while and is gone was detached (or its
    // volume deleted) outside. A time that cannot be read (written into the table) is long ago.
    if (ebsVolumeId && now - Date.parse(attachment.status.updatedAt) < ctx.config.describeGraceMs) return { outcome: 'skipped' };
    const message = current
      ? `EC2 shows ${current.ebsVolumeId} not attached to ${attachment.instanceId} (detached outside the provisioner); attaching again`
      : `volume ${attachment.volumeId}${ebsVolumeId ? ` (${ebsVolumeId})` : ''} no longer exists in EC2 (deleted outside the provisioner); waiting for it to be created again`;
    let status = successStatus(attachment.status, nextAttachmentState('attached', 'observed-detached'), now, message);
    // A single-attach volume attached to another instance there (moved in the console), or a volume
    // record in error (one that let go of its vanished volume waits for its client's retry): no
    // attach follows until that changes, so the status says that wait, as no message follows a wait.
    const elsewhere = current && !current.multiAttach && current.attachments.some((a) => a.instanceId !== attachment.instanceId && a.state !== 'detached');
    if (elsewhere || item.volume.status.state === 'error')
      status = waitShown(attachment, status, elsewhere ? { ...item.volume, status: { ...item.volume.status, state: 'in-use' } } : item.volume, now);
    return {
      outcome: 'succeeded',
      changes: { status, device: null },
      // A volume record that still holds the id learns it is gone from its own check.
      alsoCheck: ebsVolumeId ? volumeCheck(attachment) : undefined,
      volumeSeen: current,
    };
  }
  return { outcome: 'skipped' };
}

/**
 * Whether a describe may still lag the call `status` records as sent: within the describe grace of
 * its operation's start. A start that cannot be read (none, or written into the table) is long ago.
 */
function describeMayLag(ctx: ExecutorContext, status: Status<string>, now: number): boolean {
  const sentMs = operationStartMs(status);
  return sentMs !== undefined && now - sentMs < ctx.config.describeGraceMs;
}

/**
 * An attachment EC2 still lists attached past the describe grace of its detach, or lists attaching
 * (detached and attached again outside): the record says it is attached, with the device EC2
 * names. Dying, that is a failed attempt of the detach, made again after its backoff (spent, in
 * error with its device, after the longest one); set back to alive (straight in the table), it
 * stays attached.
 */
function detachNotTaken(ctx: ExecutorContext, attachment: AttachmentRecord, current: ProviderVolume, link: ProviderVolume['attachments'][number], now: number): Result {
  const attached = nextAttachmentState('detaching', 'observed-attached');
  const device = link.device !== '' ? { device: link.device } : {};
  const forced = attachment.forceDetachSentAt !== undefined ? { forceDetachSentAt: null } : {};
  if (attachment.life === 'alive')
    return { outcome: 'succeeded', changes: { status: successStatus(attachment.status, attached, now), ...device, ...forced }, alsoCheck: volumeCheck(attachment), volumeSeen: current };
  const message =
    link.state === 'attaching'
      ? `EC2 lists ${current.ebsVolumeId} attaching to ${attachment.instanceId} again after the detach (attached again outside the provisioner)`
      : `EC2 still lists ${current.ebsVolumeId} attached to ${attachment.instanceId} after the detach`;
  return detachAttemptFailed(ctx, attachment, now, message, { ...device, ...forced });
}

/**
 * The detach of a dying attachment's volumes found by their tags (its volume record removed) that
 * EC2 still lists attached (or attaching) to its instance past the describe grace of the calls: a
 * failed attempt of the detach, the record `attached` again, so the planner detaches them again (found
 * by their tags afresh) after its backoff; spent, in error after the longest one, as any dying attachment.
 */
function orphanDetachNotTaken(ctx: ExecutorContext, attachment: AttachmentRecord, volumes: readonly ProviderVolume[], now: number): Result {
  return detachAttemptFailed(ctx, attachment, now, `EC2 still lists ${volumes.map((volume) => volume.ebsVolumeId).join(', ')} attached to ${attachment.instanceId} after the detach`);
}

/**
 * A dying attachment's detach EC2 accepted and did not carry out (`AttachmentNotDetached`): a failed
 * attempt, the record `attached` again (with `changes`, such as EC2's device) so that the detach is
 * made again after its backoff; spent, in error after the longest one.
 */
function detachAttemptFailed(ctx: ExecutorContext, attachment: AttachmentRecord, now: number, message: string, changes: RecordChanges<AttachmentRecord> = {}): Result {
  const failed = attachmentFailure(ctx, attachment, now, 'DetachVolume', { outcome: 'retry', code: ATTACHMENT_NOT_DETACHED_CODE, message });
  const status = failed.changes!.status as Status<AttachmentState>;
  return { ...failed, changes: { ...failed.changes, status: status.state === 'error' ? status : { ...status, state: nextAttachmentState('detaching', 'observed-attached') }, ...changes } };
}

/**
 * What a check finds of an attach given up on while EC2 may still have made it (the device
 * kept): attached after all, it is `attached`; nothing there once a describe no longer lags,
 * the device goes, so the error says what EC2 holds and a delete or retry needs no look first.
 * Still under way in EC2, it is left for a later look (the reconciler's). A dying one without a
 * device (it looked before removing, `looksBeforeRemoving`) not attached there is removed.
 */
function givenUpSeen(ctx: ExecutorContext, attachment: AttachmentRecord, now: number, current: ProviderVolume | undefined, link: ProviderVolume['attachments'][number] | undefined): Result {
  if (link && (link.state === 'attached' || link.state === 'busy')) {
    return {
      outcome: 'succeeded',
      changes: {
        status: successStatus(attachment.status, nextAttachmentState('error', 'observed-attached'), now, 'EC2 made the attach after it was given up on'),
        device: link.device,
      },
      alsoCheck: volumeCheck(attachment),
      volumeSeen: current,
    };
  }
  if (attachment.life === 'dying' && attachment.device === undefined) {
    // Dying, it never sent AttachVolume and looked only in case its volume was attached here outside
    // the system (`looksBeforeRemoving`): not attached, nothing is left to detach. EC2 still
    // attaching or detaching it here: left for a later look (the reconciler's).
    if (link && link.state !== 'detached') return { outcome: 'skipped' };
    nextAttachmentState('error', 'removed-unattached');
    return { outcome: 'succeeded', remove: true };
  }
  if ((link && link.state !== 'detached') || now - Date.parse(attachment.status.updatedAt) < ctx.config.describeGraceMs) return { outcome: 'skipped' };
  return { outcome: 'succeeded', changes: { device: null } };
}

/**
 * Whether an attachment's check brings `volume` in line with `current` (`syncVolume`), the EC2
 * volume it names as this batch described it: the record at rest (available or in use, no
 * operation under way, unclaimed) and EC2 listing the volume so too; a dying volume only once EC2
 * lists it available (still attached elsewhere, it waits for its own check: it may be attached to
 * instances no record knows).
 */
export function volumeInLineByCheck(volume: VolumeRecord, current: ProviderVolume, now: number): boolean {
  if (volume.status.state !== 'available' && volume.status.state !== 'in-use') return false;
  // EC2 reports it in another state than those (in error, being deleted outside): the volume's own check says what that means.
  if (current.state !== 'available' && current.state !== 'in-use') return false;
  if (volume.claim && volume.claim.expiresAt > now) return false;
  return volume.life !== 'dying' || current.state === 'available';
}

export function observedChanges(volume: VolumeRecord, current: ProviderVolume, now: number): RecordChanges<VolumeRecord> {
  let state = volume.status.state;
  const target = current.state === 'in-use' ? 'in-use' : 'available';
  if (state !== target) {
    const event: VolumeEvent = target === 'in-use' ? 'observed-in-use' : 'observed-available';
    // creating → available → in-use when EC2 is already two steps ahead.
    if (state === 'creating' && target === 'in-use') state = nextVolumeState(state, 'observed-available');
    if (state !== target) state = nextVolumeState(state, event);
  }
  // What EC2 holds, the keys an unrecorded CreateTags may have set among them (so `tagKeysSet` goes).
  const seen: VolumeRecord = { ...volume, observed: observedOf(volume, current), tagKeysSet: undefined };
  // The spec judged once against what EC2 now holds, for the rejection and the catch-up alike.
  const issues = specChangeIssues(seen);
  const rejected = specRejection(seen, issues);
  const status = rejected !== undefined ? specRejectedStatus(volume.status, state, now, rejected) : successStatus(volume.status, state, now);
  const changes: RecordChanges<VolumeRecord> = {
    status,
    observed: seen.observed,
    ...zoneOf(current),
  };
  const specHeld = !modificationNeeded(seen, issues);
  // Not while a ModifyVolume sent unanswered may still take EC2 elsewhere.
  if (issues.length === 0 && specHeld && !tagsNeeded(seen) && volume.modificationSentAt === undefined) changes.observedGeneration = volume.generation;
  if (volume.tagKeysSet !== undefined) changes.tagKeysSet = null;
  // EC2 holds the spec's size, type and performance, however it got there: no failed modification counts any more.
  if (volume.failedModifications !== undefined && specHeld) changes.failedModifications = null;
  // A wait for EC2's modification limit this write would drop from the status is written with it, not shown again by a second write.
  if (volume.life === 'alive') {
    const written = withChanges(volume, changes);
    const decision = planVolume(written, [], now);
    if (decision.type === 'cooldown') Object.assign(changes, changesWithoutCall(written, decision, now));
  }
  return changes;
}

/**
 * A volume EC2 still lists at rest (available or in use) past the describe grace of the delete: the
 * record says what EC2 holds. Dying, that is a failed attempt of the delete, made again after its
 * backoff (attached, it waits for the volume to be detached first, as any dying volume in use);
 * set back to alive (straight in the table), the volume is kept.
 */
function deleteNotTaken(ctx: ExecutorContext, volume: VolumeRecord, current: ProviderVolume, now: number): Result {
  const changes = observedChanges(volume, current, now);
  if (volume.life === 'alive') return { outcome: 'succeeded', changes };
  const failed = volumeFailure(ctx, volume, now, {
    outcome: 'retry',
    code: VOLUME_NOT_DELETED_CODE,
    message: `EC2 still lists volume ${current.ebsVolumeId} as ${current.state} after the delete`,
  });
  const status = failed.changes!.status as Status<VolumeState>;
  // Spent, in error (`dyingTerminal`): the planner deletes it again after the longest backoff.
  const settled = status.state === 'error' ? status : { ...status, state: (changes.status as Status<VolumeState>).state };
  return { ...failed, changes: { ...changes, status: settled } };
}

/**
 * Still under way: keep looking, unless it has run past the maximum age. `status`: what to write
 * while it is, by default its state with its failed attempts kept (under way is not done: should
 * EC2 fail the work, the failure counts on); a pending record's call may not have been accepted
 * (a retried volume EC2 still creates, an attach whose answer was lost), so its start stays too
 * and the budget and the age limit still end it.
 */
function stillInProgress(
  ctx: ExecutorContext,
  record: ProvisionerRecord,
  now: number,
  message: string,
  status: Status<string> = record.status.state === 'pending'
    ? attemptStatus(record.status, 'pending', now, message)
    : underWayStatus(record.status, record.status.state, now, message),
): Result {
  const started = operationStartMs(record.status);
  const spent = budgetSpent(0, started, now, ctx.config, record.life === 'dying');
  if (spent) {
    if (record.kind === 'attachment') return attachmentTerminal(ctx, record, now, 'Timeout', `${message}: ${spent.message}`);
    // A dying volume is taken up again by the planner: after the longest backoff, not at once.
    return record.life === 'dying' ? dyingTerminal(ctx, record, now, 'Timeout', `${message}: ${spent.message}`) : volumeTerminal(record, now, 'Timeout', `${message}: ${spent.message}`);
  }
  return { outcome: 'in-progress', changes: { status } as Result['changes'] };
}

/**
 * The volume is gone from EC2 (deleted behind our back): the record forgets it, so that a retry
 * creates a new, empty volume (under a new token: the retry bumped the generation) and a delete
 * has nothing left to delete (a dying record's message says so: no retry comes for it).
 */
export function volumeVanished(volume: VolumeRecord, event: VolumeEvent, now: number): Result {
  const state = nextVolumeState(volume.status.state, event);
  const status = failureStatus(volume.status, state, now, {
    code: 'InvalidVolume.NotFound',
    message:
      event === 'failed'
        ? removedWhileCreatingMessage(volume)
        : `volume ${volume.ebsVolumeId} ${event === 'deleted-while-wanted' ? 'was deleted before the record was set back to alive' : 'no longer exists in EC2'}; ${volume.life === 'dying' ? NOTHING_TO_DELETE : 'a retry creates a new, empty volume'}`,
    attempts: volume.status.attempts + 1,
  });
  return { outcome: 'failed', changes: { status, ...FORGET_VOLUME } };
}
