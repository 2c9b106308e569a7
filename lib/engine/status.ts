/**
 * Building the status a person reads. Success clears the error code, attempts and next attempt
 * time; a failure carries the EC2 error code and message, the attempt count and when the next
 * attempt is due. Between attempts (`attemptStatus`) the attempts and the operation's start stay;
 * waits for EC2 or for another record (`waitingStatus`, `waitingOnRecordStatus`) and a refused
 * spec (`specRejectedStatus`) keep the state. Every message is shortened to the status message
 * bound (`shortenMessage`), whatever EC2 or a record's content made it.
 */
import type { AttachmentState, Status } from '../domain/records.js';
import { canonicalJson } from '../domain/canonical-json.js';
import { MODIFICATION_RATE_RULE } from '../domain/ebs-limits.js';
import { shortenAround, shortenMessage } from '../domain/status-message.js';
import { nextAttachmentState, nextVolumeState } from '../domain/state-machines.js';
import { givenUpOnceAlive } from './schedule.js';

/** Volume and attachment states in which no operation is under way. */
const RESTING = new Set(['available', 'in-use', 'attached', 'error', 'deleted', 'detached']);

/**
 * Status after a step that succeeded; keeps the operation's start time while it is under way.
 * `accepted`: EC2 just accepted the call, so the wait for its asynchronous work starts now (time
 * spent on retries before it does not make the progress checks sparser).
 */
export function successStatus<S extends string>(
  previous: Status<string>,
  state: S,
  nowMs: number,
  message?: string,
  accepted = false,
): Status<S> {
  const status: Status<S> = { state, attempts: 0, updatedAt: new Date(nowMs).toISOString() };
  if (message !== undefined) status.message = shortenMessage(message);
  if (!RESTING.has(state) && state !== 'pending')
    status.operationStartedAt = accepted ? new Date(nowMs).toISOString() : operationStart(previous, nowMs);
  return status;
}

/**
 * Status after EC2 accepted a call that goes on with the operation whose failed attempts
 * `previous` counts (a create or an attach tried again): as `successStatus` of an accepted call,
 * but the attempts stay until the operation completes, so work EC2 accepts and then fails every
 * time still ends at the budget. (Failed modifications are counted on the record instead:
 * `failedModifications`.)
 */
export function continuedStatus<S extends string>(previous: Status<string>, state: S, nowMs: number, message: string): Status<S> {
  return { ...successStatus(previous, state, nowMs, message, true), attempts: previous.attempts };
}

/**
 * Status of an operation a look found still under way: no failure now, but not done either, so
 * the failed attempts of an operation under way stay (a resting state has none).
 */
export function underWayStatus<S extends string>(previous: Status<string>, state: S, nowMs: number, message: string): Status<S> {
  const status = successStatus(previous, state, nowMs, message);
  if (!RESTING.has(state)) status.attempts = previous.attempts;
  return status;
}

/**
 * Status of an operation between its attempts, nothing having succeeded yet: written just before
 * an EC2 call (the claim rides on it), or by a check that found the last attempt did not take (or
 * is still under way in EC2). The failed attempts so far and the operation's start are kept, in
 * any state, so a failure then counts on and the attempt budget and the age limit still end it.
 */
export function attemptStatus<S extends string>(previous: Status<string>, state: S, nowMs: number, message: string): Status<S> {
  return { ...successStatus(previous, state, nowMs, message), attempts: previous.attempts, operationStartedAt: operationStart(previous, nowMs) };
}

/**
 * What a retry of a record in `error` its client asked for at `generation` writes: back to
 * `pending`, attempts reset, and the generation marked retried so a late copy of the change finds
 * it made. Written by the API with the retry request itself (or the PATCH that is one), so its
 * answer and a client waiting on it see the retry at once, and by the watcher for a retry written
 * straight into the table.
 */
export function retryRequested(
  kind: 'volume' | 'attachment',
  generation: number,
  nowMs: number,
): { status: Status<'pending'>; retriedGeneration: number; failedModifications?: null } {
  const state = kind === 'volume' ? nextVolumeState('error', 'retry-requested') : nextAttachmentState('error', 'retry-requested');
  return {
    status: { state: state as 'pending', attempts: 0, updatedAt: new Date(nowMs).toISOString(), message: 'retry requested' },
    retriedGeneration: generation,
    // The modifications EC2 failed are the attempts of a volume's modification: a retry starts them afresh too.
    ...(kind === 'volume' ? { failedModifications: null } : {}),
  };
}

/**
 * Status of a record its client just made dying, or undefined when it needs no write: the failed
 * attempts of the live record's operation, which is not made any more, go with its next attempt
 * and start, so the delete or detach that follows has an attempt budget and age of its own (the
 * code and message still say what failed, until that operation writes). An operation under way in
 * EC2 goes on: its failures count on.
 */
export function madeDyingStatus<S extends string>(previous: Status<S>, nowMs: number): Status<S> | undefined {
  if (previous.attempts === 0 || (!RESTING.has(previous.state) && previous.state !== 'pending')) return undefined;
  const { nextAttemptAt: _next, operationStartedAt: _started, ...rest } = previous;
  return { ...rest, attempts: 0, updatedAt: new Date(nowMs).toISOString() };
}

/**
 * When a failed attempt's retry is due (`status.nextAttemptAt`, epoch ms), if after `nowMs`;
 * undefined when none is pending (a wait for EC2's modification limit is no failed attempt).
 */
export function pendingRetryAtMs(status: Status<string>, nowMs: number): number | undefined {
  if (status.nextAttemptAt === undefined || status.code === MODIFICATION_COOLDOWN_CODE) return undefined;
  const atMs = Date.parse(status.nextAttemptAt);
  return atMs > nowMs ? atMs : undefined;
}

/** The code of a dying volume's status after EC2 accepted its DeleteVolume and, past the describe grace, still lists it. */
export const VOLUME_NOT_DELETED_CODE = 'VolumeNotDeleted';

/** The code of a dying attachment's status after EC2 accepted its DetachVolume and, past the describe grace, still lists it attached. */
export const ATTACHMENT_NOT_DETACHED_CODE = 'AttachmentNotDetached';

/**
 * Status after EC2 accepted a DeleteVolume or DetachVolume: as any accepted call's, except that
 * when the last attempt was one EC2 accepted and did not carry out (`notTakenCode`), the attempts
 * stay, so a call EC2 keeps accepting and never makes ends at the budget rather than being sent
 * again every describe grace for ever.
 */
export function acceptedAgainStatus<S extends string>(previous: Status<string>, state: S, nowMs: number, message: string, notTakenCode: string): Status<S> {
  return previous.code === notTakenCode ? continuedStatus(previous, state, nowMs, message) : successStatus(previous, state, nowMs, message, true);
}

/** The code of a volume's status after EC2 failed a modification it had accepted (DescribeVolumesModifications says `failed`). */
export const MODIFICATION_FAILED_CODE = 'ModificationFailed';

/** The code of a volume's status while EBS cannot bring it to its spec; the message says why. */
export const SPEC_REJECTED_CODE = 'InvalidSpecChange';

/**
 * Status of a volume whose spec EBS cannot reach from what the volume is: its state kept, no
 * operation, the reasons, until the client changes the spec or deletes the volume.
 */
export function specRejectedStatus<S extends string>(previous: Status<string>, state: S, nowMs: number, reasons: string): Status<S> {
  return { ...successStatus(previous, state, nowMs, reasons), code: SPEC_REJECTED_CODE };
}

/** `status` without a spec rejection (written now): once the spec changed, or the volume is dying, it no longer holds. */
export function withoutSpecRejection<S extends string>(status: Status<S>, nowMs: number): Status<S> {
  if (status.code !== SPEC_REJECTED_CODE) return status;
  const { code: _code, message: _message, ...rest } = status;
  return { ...rest, updatedAt: new Date(nowMs).toISOString() };
}

/** What a dying record's give-up adds to its message: it is tried again at `atMs`, as its `nextAttemptAt` says. */
const DYING_RETRY = '; being deleted: trying again at ';

/** How long the clause a dying record's give-up adds to its message is (`dyingGiveUpMessage`). */
export const DYING_GIVE_UP_CHARS = DYING_RETRY.length + new Date(0).toISOString().length;

/**
 * The message of a dying record's step that failed for good, tried again at `atMs`, within the
 * status message bound: a long `message` is shortened, the clause is kept whole (and
 * `withoutDyingRetry` takes it off again).
 */
export function dyingGiveUpMessage(message: string, atMs: number): string {
  return shortenAround('', message, `${DYING_RETRY}${new Date(atMs).toISOString()}`);
}

/**
 * `status` of a record in error set back to alive (written straight into the table) after its
 * delete or detach failed: no next attempt comes any more, so neither it nor the message says one
 * does, and the message says it gave up rather than how far it got (`givenUpOnceAlive`). Only a
 * dying record's step writes an `error` with a next attempt.
 */
function withoutDyingRetry<S extends string>(status: Status<S>, nowMs: number): Status<S> {
  const { nextAttemptAt: _next, ...rest } = status;
  const at = rest.message?.lastIndexOf(DYING_RETRY) ?? -1;
  return { ...rest, ...(at >= 0 ? { message: givenUpOnceAlive(rest.message!.slice(0, at)) } : {}), updatedAt: new Date(nowMs).toISOString() };
}

/** How a VolumeError message ends on a dying record: its delete follows (`volumeErrorMessage`). */
export const VOLUME_ERROR_DYING = '; the record is being deleted, which deletes the EC2 volume next';

/** How a VolumeError message ends on a live record: what the client can do. */
export const VOLUME_ERROR_ALIVE = '. Delete this volume record (that deletes the EC2 volume) and create it again; a retry only looks at it again';

/**
 * `status` of a volume in error (VolumeError, no next attempt) set back to alive (written straight
 * into the table) before the delete its message announces: no delete follows any more, so the
 * message says what the client can do, as for any live volume in error.
 */
function withoutDyingDelete<S extends string>(status: Status<S>, nowMs: number): Status<S> {
  const message = status.message!;
  return { ...status, message: shortenMessage(`${message.slice(0, message.length - VOLUME_ERROR_DYING.length)}${VOLUME_ERROR_ALIVE}`), updatedAt: new Date(nowMs).toISOString() };
}

/** States at rest whose retry, once the planner finds nothing to do, is of an operation no longer asked for. */
const SETTLED_AT_REST: ReadonlySet<string> = new Set(['available', 'in-use', 'attached']);

/**
 * Status of a record the planner finds nothing to do for (`none`): a spec rejection no longer
 * holds, and in `available`, `in-use` or `attached` neither does a wait or a retry the record no
 * longer needs (a grow waiting for EC2's rate limit whose size the client put back, say, or the
 * detach EC2 refused of an attachment set back to alive), which would announce a next attempt that
 * never comes, nor in `error` the retry of a delete or detach the record no longer asks for
 * (`withoutDyingRetry`, which says it gave up) or the delete a volume in error no longer follows with (`withoutDyingDelete`). The state stays; `status` itself when nothing changes.
 */
export function settledStatus<S extends string>(status: Status<S>, nowMs: number): Status<S> {
  if (status.state === 'error' && status.nextAttemptAt !== undefined) return withoutDyingRetry(status, nowMs);
  if (status.state === 'error' && status.message?.endsWith(VOLUME_ERROR_DYING)) return withoutDyingDelete(status, nowMs);
  if (status.nextAttemptAt === undefined || !SETTLED_AT_REST.has(status.state)) return withoutSpecRejection(status, nowMs);
  return successStatus(status, status.state, nowMs);
}

/** Status after a failed (or throttled) step. */
export function failureStatus<S extends string>(
  previous: Status<string>,
  state: S,
  nowMs: number,
  failure: { code: string; message: string; attempts: number; nextAttemptAtMs?: number },
): Status<S> {
  const status: Status<S> = {
    state,
    code: failure.code,
    message: shortenMessage(failure.message),
    attempts: failure.attempts,
    updatedAt: new Date(nowMs).toISOString(),
    operationStartedAt: operationStart(previous, nowMs),
  };
  if (failure.nextAttemptAtMs !== undefined) status.nextAttemptAt = new Date(failure.nextAttemptAtMs).toISOString();
  return status;
}

/**
 * Status of an operation that waits for EC2 to allow it (another modification under way, EC2's
 * limit on modifications): the state stays, no attempt is used, and the wait is no part of the
 * operation's age (no `operationStartedAt`: the next attempt starts the count), so a wait of
 * hours cannot end in a terminal error.
 */
export function waitingStatus<S extends string>(
  previous: Status<string>,
  state: S,
  nowMs: number,
  wait: { code: string; message: string; nextAttemptAtMs: number },
): Status<S> {
  return {
    state,
    code: wait.code,
    message: shortenMessage(wait.message),
    attempts: previous.attempts,
    updatedAt: new Date(nowMs).toISOString(),
    nextAttemptAt: new Date(wait.nextAttemptAtMs).toISOString(),
  };
}

/** The code of a volume's status while its modification waits for EC2's rate limit (4 modifications per volume in any 24 hours). */
export const MODIFICATION_COOLDOWN_CODE = 'VolumeModificationRateExceeded';

/** EC2 reports a modification's start to the second, by a clock that may be a little off ours. */
export const EC2_TIME_SLACK_MS = 5_000;

/** The wait of a modification EC2's rate limit holds back until `atMs`, as the status shows it (for `waitingStatus`): the rule and the time. */
export function cooldownWait(atMs: number): { code: string; message: string; nextAttemptAtMs: number } {
  return { code: MODIFICATION_COOLDOWN_CODE, message: `${MODIFICATION_RATE_RULE}; trying again at ${new Date(atMs).toISOString()}`, nextAttemptAtMs: atMs };
}

/**
 * When the modification of a volume at rest whose status shows a wait for EC2's rate limit may be
 * made (`nextAttemptAt`, epoch ms), for those who read the status; undefined for any other status.
 * The engine counts the wait from the volume record (`modificationCooldownEndMs`).
 */
export function cooldownEndMs(status: Status<string>): number | undefined {
  if (status.code !== MODIFICATION_COOLDOWN_CODE || status.nextAttemptAt === undefined) return undefined;
  if (status.state !== 'available' && status.state !== 'in-use') return undefined;
  const endMs = Date.parse(status.nextAttemptAt);
  return Number.isNaN(endMs) ? undefined : endMs;
}

/**
 * Status of a record that waits for another record, whose change releases it (an attachment for
 * its volume, a dying volume for its attachments): its state, with the reason as its message. No
 * next attempt of its own, nor the code of an earlier failure or wait, which no longer holds (an
 * error keeps the code it failed with); the failed attempts stay, unless the wait ends them
 * (`attemptsEnd`: it lasts until a client retries the other record). A pending record's wait,
 * which may last as long as the other record takes, is no part of its operation's age.
 */
export function waitingOnRecordStatus<S extends string>(previous: Status<S>, nowMs: number, reason: string, attemptsEnd = false): Status<S> {
  const attempts = attemptsEnd ? 0 : previous.attempts;
  const status: Status<S> = { state: previous.state, message: shortenMessage(reason), attempts, updatedAt: new Date(nowMs).toISOString() };
  if (previous.state === 'error' && previous.code !== undefined) status.code = previous.code;
  if (previous.state !== 'pending' && previous.operationStartedAt !== undefined) status.operationStartedAt = previous.operationStartedAt;
  return status;
}

/** The code of an attachment's status once its volume record was removed from the table while EC2 may hold it attached. */
export const VOLUME_RECORD_REMOVED_CODE = 'VolumeRecordRemoved';

/**
 * Status of an attachment EC2 may hold attached whose volume record was removed from the table:
 * `error` until the client deletes it, with the reason; no next attempt, since no EC2 call can be
 * made for it. One with a device kept may hold the removed record's volume: neither a retry nor a
 * PUT of it is taken, also once the volume record is written again (`volumeRecordLost`).
 */
export function volumeRecordRemovedStatus(previous: Status<AttachmentState>, nowMs: number, reason: string): Status<AttachmentState> {
  const state = previous.state === 'error' ? 'error' : nextAttachmentState(previous.state, 'volume-record-removed');
  return { state, code: VOLUME_RECORD_REMOVED_CODE, message: shortenMessage(reason), attempts: previous.attempts, updatedAt: new Date(nowMs).toISOString() };
}

/** The code of the status of a record the system will not act on: not valid as it is in the table. */
export const INVALID_RECORD_CODE = 'InvalidRecord';

/** Status of a record that is not valid (written straight into the table): `error`, with the reasons, until the client corrects it. */
export function invalidRecordStatus(nowMs: number, reasons: string): Status<'error'> {
  return { state: 'error', code: INVALID_RECORD_CODE, message: shortenMessage(reasons), attempts: 0, updatedAt: new Date(nowMs).toISOString() };
}

/** Whether two statuses say the same, whenever each was written. */
export function sameStatus(a: Status<string>, b: Status<string>): boolean {
  return canonicalJson({ ...a, updatedAt: '' }) === canonicalJson({ ...b, updatedAt: '' });
}

/** When the current operation started: kept across retries and progress checks, else now. */
export function operationStart(previous: Status<string>, nowMs: number): string {
  if (previous.operationStartedAt && (previous.attempts > 0 || !RESTING.has(previous.state))) return previous.operationStartedAt;
  return new Date(nowMs).toISOString();
}

export function operationStartMs(status: Status<string>): number | undefined {
  return status.operationStartedAt ? Date.parse(status.operationStartedAt) : undefined;
}
