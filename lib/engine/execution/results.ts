/**
 * How a step of the executor ends when it fails or gives up: the `Result` of a failure (retried
 * with backoff, throttled, or terminal), of a give-up (an alive record in error, a dying one
 * taken up again after the longest backoff), what a volume record forgets once its EC2
 * request or volume is gone, and an item whose step threw (`stepFailed`). Operations and checks
 * build their failures here.
 */
import { keyOf, type AttachmentRecord, type AttachmentState, type Status, type VolumeRecord, type VolumeState } from '../../domain/records.js';
import { nextAttachmentState, nextVolumeState, type AttachmentEvent } from '../../domain/state-machines.js';
import { type ProviderCall, errorMessage, type ClassifiedError } from '../errors.js';
import type { OperationOutcome, ProviderVolume, RecordChanges } from '../ports.js';
import { backoffDelaySeconds, budgetSpent, snapshotWaitSeconds, throttleDelaySeconds } from '../schedule.js';
import { DYING_GIVE_UP_CHARS, VOLUME_ERROR_ALIVE, VOLUME_ERROR_DYING, dyingGiveUpMessage, failureStatus, operationStartMs } from '../status.js';
import { MAX_STATUS_MESSAGE_CHARS, shortenAround } from '../../domain/status-message.js';
import { FORGET_MODIFICATION_STARTS } from '../modification-window.js';
import type { ExecutorContext } from './context.js';
import type { Result, Item } from './item.js';
import { messageAt } from './follow-ups.js';

/**
 * What a volume record knows of its CreateVolume request, forgotten when no volume exists under it
 * (EC2 turned it down) or the volume it made is gone: the request, whose token EC2 would answer
 * with the gone volume and whose fixed fields no longer bind a new one; the AZ it was placed in,
 * so the next create places the spec as it is then; and the generation it made.
 */
export const FORGET_CREATE_REQUEST: RecordChanges<VolumeRecord> = { createRequest: null, availabilityZone: null, observedGeneration: null };

/** What a volume record knows of an EC2 volume, forgotten once that volume is gone: its request too. */
export const FORGET_VOLUME: RecordChanges<VolumeRecord> = {
  ...FORGET_CREATE_REQUEST,
  ...FORGET_MODIFICATION_STARTS,
  ebsVolumeId: null,
  observed: null,
  modificationSentAt: null,
  tagKeysSet: null,
  failedModifications: null,
};

/**
 * A volume in EC2 state `error` has lost its data and can only be deleted. Retrying does not
 * delete it (it holds the client's volume id and tags, and deleting is the client's call): it
 * only looks at it again. A dying record's volume is deleted next, as a dying record in error is
 * (the planner's delete after an error): its message says so.
 */
export function volumeErrorMessage(ebsVolumeId: string, dying = false): string {
  const lost = `EC2 reports volume ${ebsVolumeId} in state error: its storage failed and its data cannot be recovered`;
  return `${lost}${dying ? VOLUME_ERROR_DYING : VOLUME_ERROR_ALIVE}`;
}

/**
 * A dying volume EC2 shows attached to instances no record names. No record's detach frees it: a
 * wait that uses attempts, so the looks back off and, spent, come back after the longest backoff
 * (an in-use status carries no start for an age limit to end a look every few seconds). The
 * message names the instances that hold the volume: those EC2 lists attaching, attached or busy,
 * and, apart, those it lists detaching; not those it lists detached (a describe that lags a detach).
 */
export function attachedOutside(ctx: ExecutorContext, volume: VolumeRecord, current: ProviderVolume, now: number): Result {
  const held = current.attachments.filter((a) => a.state !== 'detached');
  const attached = held.filter((a) => a.state !== 'detaching').map((a) => a.instanceId);
  const detaching = held.filter((a) => a.state === 'detaching').map((a) => a.instanceId);
  const message =
    attached.length > 0
      ? `attached outside the system to ${attached.join(', ')}${detaching.length > 0 ? ` (and detaching from ${detaching.join(', ')})` : ''}, no record names the attachment: detach it there (forced if need be) for the delete to go on`
      : detaching.length > 0
        ? `detaching outside the system from ${detaching.join(', ')}, no record names the attachment: the delete goes on once EC2 has detached it (force the detach there if it does not end)`
        : 'EC2 lists the volume in use with no instance holding it (a describe that lags a detach): the delete goes on once EC2 lists it available';
  const failed = volumeFailure(ctx, volume, now, { outcome: 'wait-for-prerequisite', code: 'VolumeInUse', message });
  const status = failed.changes!.status as Status<VolumeState>;
  // A record that said available learns it is in use, so its next steps are looks.
  if (status.state !== 'available') return failed;
  return { ...failed, changes: { ...failed.changes, status: { ...status, state: nextVolumeState('available', 'observed-in-use') } } };
}

export function volumeTerminal(volume: VolumeRecord, now: number, code: string, message: string): Result {
  const state = volume.status.state === 'error' ? 'error' : nextVolumeState(volume.status.state, 'failed');
  return { outcome: 'failed', changes: { status: failureStatus(volume.status, state, now, { code, message, attempts: volume.status.attempts + 1 }) } };
}

/**
 * A dying volume's step failed for good. The planner takes a dying record in error up again (its
 * delete, or the repeat of its CreateVolume that learns the id), so that is tried again after the
 * longest backoff rather than at once: a failure that stays would otherwise call EC2 in a loop.
 */
export function dyingTerminal(ctx: ExecutorContext, volume: VolumeRecord, now: number, code: string, message: string): Result {
  const atMs = now + ctx.config.backoff.capSeconds * 1000;
  const terminal = volumeTerminal(volume, now, code, dyingGiveUpMessage(message, atMs));
  const status: Status<VolumeState> = { ...(terminal.changes!.status as Status<VolumeState>), nextAttemptAt: new Date(atMs).toISOString() };
  return { ...terminal, retryAtMs: atMs, changes: { ...terminal.changes, status } };
}

/**
 * An attachment's step failed for good. The planner takes a dying one in error up again (its
 * detach, with its volume found by its tags when the volume record is gone), so, as for a dying
 * volume (`dyingTerminal`), that is tried again after the longest backoff rather than at once.
 */
export function attachmentTerminal(ctx: ExecutorContext, attachment: AttachmentRecord, now: number, code: string, message: string, notAttached = false): Result {
  const state = attachment.status.state === 'error' ? 'error' : nextAttachmentState(attachment.status.state, 'failed');
  const attempts = attachment.status.attempts + 1;
  const device = notAttached ? { device: null } : {};
  if (attachment.life !== 'dying') {
    const result: Result = { outcome: 'failed', changes: { status: failureStatus(attachment.status, state, now, { code, message, attempts }), ...device } };
    // Given up while EC2 may still make the attach (its answer lost, EC2 still attaching): one more look tells the status which it was.
    if (!notAttached && attachment.device !== undefined)
      result.alsoCheck = [messageAt(ctx, 'check-attachment', keyOf(attachment), 'given up while EC2 may still make the attach: looking once more', now, now + ctx.config.describeGraceMs)];
    return result;
  }
  const atMs = now + ctx.config.backoff.capSeconds * 1000;
  const status = failureStatus(attachment.status, state, now, { code, message: dyingGiveUpMessage(message, atMs), attempts, nextAttemptAtMs: atMs });
  return { outcome: 'failed', retryAtMs: atMs, changes: { status, ...device } };
}

/**
 * A failed look at a modification under way: an attempt, but judged without the operation's
 * age, as EC2's making of it is not (it is never given up on while `modifying`). Its start stays
 * on the status: the checks tell this modification from earlier ones by it.
 */
export function modificationLookFailure(ctx: ExecutorContext, volume: VolumeRecord, now: number, error: ClassifiedError): Result {
  const { operationStartedAt, ...withoutStart } = volume.status;
  const result = volumeFailure(ctx, { ...volume, status: withoutStart }, now, error);
  const status = result.changes?.status as Status<VolumeState> | undefined;
  if (status && operationStartedAt !== undefined) status.operationStartedAt = operationStartedAt;
  return result;
}

/** A failed step of a volume operation: throttled, retried with backoff, or terminal. */
export function volumeFailure(ctx: ExecutorContext, volume: VolumeRecord, now: number, error: ClassifiedError): Result {
  const retry = retryPlan(ctx, volume.status, now, error, volume.life === 'dying');
  if (retry.terminal) return volume.life === 'dying' ? dyingTerminal(ctx, volume, now, error.code, retry.message) : volumeTerminal(volume, now, error.code, retry.message);
  return {
    outcome: retry.outcome,
    retryAtMs: retry.atMs,
    changes: {
      status: failureStatus(volume.status, volume.status.state, now, { code: error.code, message: retry.message, attempts: retry.attempts, nextAttemptAtMs: retry.atMs }),
    },
  };
}

/**
 * A failed step of an attachment operation; an attach that was under way goes back to pending
 * when the attach itself failed (or a check saw it not take). A failed look at EC2 (a describe)
 * or a failed detach of the volumes found by their tags says nothing of it: it stays under way.
 */
export function attachmentFailure(
  ctx: ExecutorContext,
  attachment: AttachmentRecord,
  now: number,
  call: ProviderCall,
  error: ClassifiedError,
  revertEvent: AttachmentEvent = 'attach-failed',
): Result {
  // A device stays recorded while EC2 may have attached the volume: it is what tells the planner
  // to look before attaching again, and to detach rather than forget a dying attachment. Only an
  // attach EC2 refused, or a check that saw it not attached, proves it was not.
  const notAttached = (call === 'AttachVolume' && revertEvent === 'attach-failed' && !error.uncertain) || revertEvent === 'observed-detached';
  const retry = retryPlan(ctx, attachment.status, now, error, attachment.life === 'dying');
  if (retry.terminal) return attachmentTerminal(ctx, attachment, now, error.code, retry.message, notAttached);
  const attaching = attachment.status.state === 'attaching' && call === 'AttachVolume';
  const state: AttachmentState = attaching ? nextAttachmentState('attaching', revertEvent) : attachment.status.state;
  const changes: RecordChanges<AttachmentRecord> = {
    status: failureStatus(attachment.status, state, now, { code: error.code, message: retry.message, attempts: retry.attempts, nextAttemptAtMs: retry.atMs }),
  };
  if (attaching && notAttached) changes.device = null;
  return { outcome: retry.outcome, retryAtMs: retry.atMs, changes };
}

function retryPlan(
  ctx: ExecutorContext,
  status: Status<string>,
  now: number,
  error: ClassifiedError,
  dying: boolean,
): { terminal: true; message: string } | { terminal: false; outcome: OperationOutcome; attempts: number; atMs: number; message: string } {
  if (error.outcome === 'throttled') {
    return { terminal: false, outcome: 'throttled', attempts: status.attempts, atMs: now + throttleDelaySeconds(ctx.config, ctx.random) * 1000, message: error.message };
  }
  if (error.outcome === 'terminal') return { terminal: true, message: error.message };
  if (error.outcome === 'wait-for-snapshot') {
    // No attempt: the wait ends when EC2 completes the snapshot, or at the operation's maximum age.
    const startedMs = operationStartMs(status) ?? now;
    const aged = budgetSpent(status.attempts, startedMs, now, ctx.config, dying);
    if (aged) return { terminal: true, message: givenUpMessage(error.message, aged.message, dying) };
    return { terminal: false, outcome: 'retrying', attempts: status.attempts, atMs: now + snapshotWaitSeconds(now - startedMs, ctx.config) * 1000, message: `waiting: ${error.message}` };
  }
  const attempts = status.attempts + 1;
  const spent = budgetSpent(attempts, operationStartMs(status) ?? now, now, ctx.config, dying);
  if (spent) return { terminal: true, message: givenUpMessage(error.message, spent.message, dying) };
  const prefix = error.outcome === 'wait-for-prerequisite' ? 'waiting: ' : '';
  return {
    terminal: false,
    outcome: 'retrying',
    attempts,
    atMs: now + backoffDelaySeconds(attempts, ctx.config, ctx.random) * 1000,
    message: `${prefix}${error.message}`,
  };
}

/**
 * The message of a step given up on: the failure's, then why it was given up. A long failure
 * message is shortened so that the reason, and a dying record's next attempt that
 * `dyingGiveUpMessage` adds after it, stay within the status message bound.
 */
function givenUpMessage(message: string, reason: string, dying: boolean): string {
  return shortenAround('', message, ` (${reason})`, MAX_STATUS_MESSAGE_CHARS - (dying ? DYING_GIVE_UP_CHARS : 0));
}

/**
 * An item's step (planning, preparing or making its call) threw on something nothing classified
 * (an answer of an unexpected shape, a transition the table refuses): that item's message alone
 * fails, not the batch: logged, its claim let go, its message delivered again (and dead-lettered
 * if it keeps failing).
 */
export function stepFailed(ctx: ExecutorContext, item: Item, error: unknown): void {
  ctx.deps.log.error('operation step failed', { key: item.id, error: errorMessage(error) });
  item.failure = errorMessage(error);
  item.result = undefined;
  item.infraFailed = true;
}
