/**
 * The executor's follow-up messages: how a record's next look is timed and marked (a check of an
 * operation's chain, a retry of a failed attempt, a look), a message sent again for the copies a
 * batch merged, and the message that carries a written record on. Nothing here is sent: the
 * batch sends what these build (`Executor.sendFollowUps`).
 */
import { keyOf, type AttachmentRecord, type ProvisionerRecord, type RecordKey, type VolumeRecord } from '../../domain/records.js';
import { CHECK_OPERATIONS, planAttachment, planVolume, type Decision } from '../planner.js';
import type { OperationKind, OperationMessage, QueuedOperation } from '../ports.js';
import { alignedCheckAtMs, checkQueueDelay, progressDelaySeconds, queueDelay } from '../schedule.js';
import { MODIFICATION_COOLDOWN_CODE, operationStartMs } from '../status.js';
import { changesWithoutCall } from '../without-call.js';
import type { ExecutorContext } from './context.js';
import type { Result, Item } from './item.js';

/** The operation whose progress a transitional state is waiting on. */
export const IN_PROGRESS: Partial<Record<string, OperationKind>> = {
  creating: 'create-volume',
  modifying: 'modify-volume',
  deleting: 'delete-volume',
  attaching: 'attach',
  detaching: 'detach',
};

/** Whether a copy is an operation's own message: no look (`OperationMessage.nudge`), no check, no retry of a failed attempt (`OperationMessage.retryOf`). */
export function ownMessage(message: OperationMessage): boolean {
  return !message.nudge && !CHECK_OPERATIONS.has(message.op) && message.retryOf === undefined;
}

/** `operation`, sent for the next attempt `written` names after a failure, marked as that attempt's retry (`OperationMessage.retryOf`). */
function retryOfAttempt(operation: QueuedOperation, written: ProvisionerRecord): QueuedOperation {
  const next = written.status.nextAttemptAt;
  if (next !== undefined && !CHECK_OPERATIONS.has(operation.message.op)) operation.message.retryOf = next;
  return operation;
}

/**
 * `message`, sent again for the item's copies, marked as they were: a look when every copy was one
 * (`nudgeOnly`), and still a retry when every copy that was an operation's message was one, so a
 * later attempt's backoff holds it back (of `attempt` when given, else of the copies' last).
 */
export function markAsCopies(message: OperationMessage, item: Item, attempt?: string): void {
  if (item.nudgeOnly) message.nudge = true;
  const retryOf = item.ownMessage || CHECK_OPERATIONS.has(message.op) ? undefined : (attempt ?? item.retriesOf?.at(-1));
  if (retryOf !== undefined) message.retryOf = retryOf;
}

/** Notes what chain, if any, a copy of the item's message belongs to (`Item.chainOf`, `Item.unchained`); a look belongs to none. */
export function noteChain(item: Item, message: OperationMessage): void {
  if (message.nudge) return;
  if (message.chainOf !== undefined && CHECK_OPERATIONS.has(message.op)) (item.chainOf ??= []).push(message.chainOf);
  else item.unchained = true;
}

/** `operation`, a progress check, marked as one of the chain of the operation under way on `record` (`OperationMessage.chainOf`), if any. */
export function chained(operation: QueuedOperation, record: ProvisionerRecord): QueuedOperation {
  const started = record.status.operationStartedAt;
  if (started !== undefined) operation.message.chainOf = started;
  return operation;
}

/** Whether the item holds a copy of its message due after `atMs` (a wait's message, delivered with one due sooner): acting by then consumed it. */
function consumedCopyDueLater(item: Item, atMs: number): boolean {
  return item.latestDueAt !== undefined && item.latestDueAt > atMs;
}

/**
 * The operation of the one message that brings the item's copies back: an operation's own when one
 * of them was (a check in its place takes only tokens usable now), else the first copy's.
 */
function resendOp(item: Item): OperationKind {
  return item.ops.find((op) => !CHECK_OPERATIONS.has(op)) ?? item.hint;
}

/**
 * A token of the shared budget taken for the item's operation and not spent (the call was not
 * made): its message sent again keeps it, so the operation does not take a second one at the back
 * of the line. Tokens of the environment's own share are refunded instead.
 */
function unspentTokenAt(item: Item, op: OperationKind): number | undefined {
  if (item.token) return item.token.shared && !item.token.used ? item.token.atMs : undefined;
  return item.tokenOp === op ? item.tokenAt : undefined;
}

/**
 * The result's checks of other records (`alsoCheck`: an attachment's volume). The check of a
 * volume whose operation was under way when the batch read it goes as a look
 * (`OperationMessage.nudge`): the operation's own chain of checks is on it and sees its end, and
 * a check that went on with checks of its own would start another chain beside it (an
 * attachment detached during a modification that takes hours, say).
 */
export function alsoChecks(item: Item, result: Result): QueuedOperation[] {
  const volume = item.volume;
  const underWay = volume !== undefined && IN_PROGRESS[volume.status.state] !== undefined;
  return (result.alsoCheck ?? []).map((operation) => {
    const { message } = operation;
    const ofVolume = message.key.kind === 'volume' && message.key.volumeId === volume?.volumeId && CHECK_OPERATIONS.has(message.op);
    return underWay && ofVolume ? { ...operation, message: { ...message, nudge: true } } : operation;
  });
}

export function volumeCheck(attachment: AttachmentRecord): QueuedOperation[] {
  return [{ message: message('check-volume', { kind: 'volume', volumeId: attachment.volumeId }, 'attachment changed'), delaySeconds: 0 }];
}

/** A message for `op` that falls due at `atMs`: delayed as far as one message may be, chained on from there. */
export function messageAt(ctx: ExecutorContext, op: OperationKind, key: RecordKey, reason: string, now: number, atMs: number): QueuedOperation {
  const delay = queueDelay(now, atMs, ctx.config);
  return { message: message(op, key, reason, delay.dueAt), delaySeconds: delay.delaySeconds };
}

/**
 * The item's message sent again, due at `atMs`: as its operation's own when a copy carried one
 * (`resendOp`), and still a look when every copy was one (`nudgeOnly`). A copy due
 * later still goes back as well (`resendLaterCopy`).
 */
export function resend(
  ctx: ExecutorContext,
  item: Item,
  reason: string,
  now: number,
  atMs: number,
  followUps: { item: Item; operation: QueuedOperation }[],
  /** The next attempt it comes back as the retry of (`OperationMessage.retryOf`). */
  attempt?: string,
): void {
  const op = resendOp(item);
  const operation = messageAt(ctx, op, item.key, reason, now, atMs);
  markAsCopies(operation.message, item, attempt);
  const tokenAt = unspentTokenAt(item, op);
  if (tokenAt !== undefined) operation.message.tokenAt = tokenAt;
  // A check of a chain stays one (of the same operation) when it comes back, unless a copy was not.
  const chainOf = new Set(item.chainOf);
  if (!item.nudgeOnly && !item.unchained && chainOf.size === 1 && CHECK_OPERATIONS.has(op)) operation.message.chainOf = [...chainOf][0]!;
  followUps.push({ item, operation });
  resendLaterCopy(ctx, item, now, atMs, followUps);
}

/** A progress check due at `atMs`, sent so that its batch forms then (`checkQueueDelay`). */
export function checkAt(ctx: ExecutorContext, op: OperationKind, key: RecordKey, reason: string, now: number, atMs: number): QueuedOperation {
  const delay = checkQueueDelay(now, atMs, ctx.config);
  return { message: message(op, key, reason, delay.dueAt), delaySeconds: delay.delaySeconds };
}

export function message(op: OperationKind, key: RecordKey, reason: string, dueAt?: number): OperationMessage {
  const message: OperationMessage = { op, key, reason };
  if (dueAt !== undefined) message.dueAt = dueAt;
  return message;
}

/** The message that carries `written` on (`before`: the record as read, to tell what this write changed). */
export function followUp(ctx: ExecutorContext, item: Item, before: ProvisionerRecord, written: ProvisionerRecord, result: Result, now: number): QueuedOperation | undefined {
  const decision = written.kind === 'volume' ? planVolume(written, item.attachments ?? [], now) : planAttachment(written, item.volume);
  // What was written left nothing in EC2 to a dying record (EC2 turned its CreateVolume down, say): removed now.
  if (decision.type === 'remove') return messageAt(ctx, written.kind === 'volume' ? 'check-volume' : 'check-attachment', keyOf(written), decision.reason, now, now);
  // A wait the status does not show (this write dropped it) is shown again by a message now
  // (`handleWithoutClaim`); one this result wrote (EC2 refused the call, or a check wrote it along
  // with what it saw) brings the call back when it ends; a check during it, nothing.
  if (decision.type === 'cooldown') {
    const showWait = written.kind === 'volume' ? showWaitAgain(ctx, written, decision, now) : undefined;
    if (showWait) return showWait;
    if (result.retryAtMs !== undefined) return messageAt(ctx, decision.op, keyOf(written), decision.reason, now, result.retryAtMs);
    return waitShownBy(ctx, before, written, decision, now) ?? cooldownMessage(ctx, item, decision, now);
  }
  // A retry whose record now waits for another (an attachment for its volume): its status names the
  // attempt, which leaves the watcher to it once the other is ready, so the message comes then all
  // the same, to attach or write the wait; the reconciler would take it up only once overdue.
  if (decision.type === 'wait' && result.retryAtMs !== undefined)
    return messageAt(ctx, written.kind === 'volume' ? 'check-volume' : 'check-attachment', keyOf(written), decision.reason, now, result.retryAtMs);
  // A dying volume whose operation a check saw end (a modification) while its attachments still
  // detach: the check wrote what it saw, and nothing else writes the wait (the watcher does not plan
  // on the system's writes), so a message now has the status say it (`handleWithoutClaim`).
  if (decision.type === 'wait' && written.kind === 'volume' && changesWithoutCall(written, decision, now) !== undefined)
    return messageAt(ctx, 'check-volume', keyOf(written), decision.reason, now, now);
  if (decision.type !== 'operation') return undefined;
  return stepMessage(ctx, written, decision, now, result.retryAtMs);
}

/**
 * The message for the step `decision` plans on `written` once it is written: the retry of a failed
 * attempt when due (`retryAtMs`), the next progress check of an operation under way, else the
 * step at once (a tag change, a modification back to the spec, say).
 */
export function stepMessage(ctx: ExecutorContext, written: ProvisionerRecord, decision: Extract<Decision, { type: 'operation' }>, now: number, retryAtMs?: number): QueuedOperation {
  if (retryAtMs !== undefined) return retryOfAttempt(messageAt(ctx, decision.op, keyOf(written), decision.reason, now, retryAtMs), written);
  if (CHECK_OPERATIONS.has(decision.op) || written.status.state === 'creating') {
    const check = progressCheck(ctx, decision.op, written, decision.reason, now);
    return CHECK_OPERATIONS.has(decision.op) ? chained(check, written) : check;
  }
  return messageAt(ctx, decision.op, keyOf(written), decision.reason, now, now);
}

/** The next progress check (`op`) of `written`, paced by the operation under way: a modification takes far longer than an attach. */
function progressCheck(ctx: ExecutorContext, op: OperationKind, written: ProvisionerRecord, reason: string, now: number): QueuedOperation {
  const started = operationStartMs(written.status) ?? now;
  const schedule = IN_PROGRESS[written.status.state] ?? op;
  const dueAtMs = alignedCheckAtMs(schedule, now + progressDelaySeconds(schedule, now - started, ctx.config) * 1000, ctx.config);
  return checkAt(ctx, op, keyOf(written), reason, now, dueAtMs);
}

/**
 * The next check of the chain the item carries on `volume` (`OperationMessage.chainOf`: the
 * operation under way, a modification or a creation), when that check made the volume's live
 * attachments dying: the volume waits for them, with its checks going on meanwhile (`planVolume`),
 * as they would have had the attachments been dying already; the chain sees the operation end,
 * and nothing else would (the attachments' own detaches look at the volume only). Undefined for a
 * look, a message of no chain, or a volume with no operation under way.
 */
export function chainAfterCascade(ctx: ExecutorContext, item: Item, volume: VolumeRecord, now: number): QueuedOperation | undefined {
  const started = volume.status.operationStartedAt;
  if (item.nudgeOnly || started === undefined || !item.chainOf?.includes(started)) return undefined;
  const dying = (item.attachments ?? []).map((attachment) => ({ ...attachment, life: 'dying' as const }));
  const decision = planVolume(volume, dying, now);
  if (decision.type !== 'operation' || !CHECK_OPERATIONS.has(decision.op)) return undefined;
  return chained(progressCheck(ctx, decision.op, volume, decision.reason, now), volume);
}

/**
 * The message that brings a modification back when EC2's modification limit allows it, when the write from
 * `before` to `written` is the one that put the wait in the status (a check writes it along with
 * what it saw): nothing else sends it then. Undefined otherwise.
 */
export function waitShownBy(ctx: ExecutorContext, before: ProvisionerRecord, written: ProvisionerRecord, decision: Extract<Decision, { type: 'cooldown' }>, now: number): QueuedOperation | undefined {
  const until = new Date(decision.atMs).toISOString();
  const shows = (record: ProvisionerRecord) => record.status.code === MODIFICATION_COOLDOWN_CODE && record.status.nextAttemptAt === until;
  return shows(written) && !shows(before) ? messageAt(ctx, decision.op, keyOf(written), decision.reason, now, decision.atMs) : undefined;
}

/**
 * A message now that shows a wait for EC2's modification limit again (`handleWithoutClaim`) when the
 * volume's status no longer shows it (a status write dropped it); undefined when it does.
 */
function showWaitAgain(ctx: ExecutorContext, volume: VolumeRecord, decision: Extract<Decision, { type: 'cooldown' }>, now: number): QueuedOperation | undefined {
  return changesWithoutCall(volume, decision, now) ? messageAt(ctx, decision.op, keyOf(volume), decision.reason, now, now) : undefined;
}

/**
 * The message that brings a modification back when EC2's modification limit allows it, when the item consumed
 * the one the wait scheduled (a copy due later, delivered with one due now, say), which nothing
 * else replaces: undefined otherwise, as that message is still on its way.
 */
export function cooldownMessage(ctx: ExecutorContext, item: Item, decision: Extract<Decision, { type: 'cooldown' }>, now: number): QueuedOperation | undefined {
  if (!consumedCopyDueLater(item, now)) return undefined;
  return messageAt(ctx, decision.op, item.key, decision.reason, now, decision.atMs);
}

/**
 * The copy due latest among those merged into the item (a wait's message, delivered with one due
 * sooner), sent again when it falls due after `afterMs`, when the item's own message comes back:
 * nothing else brings back the modification that wait holds.
 */
export function resendLaterCopy(ctx: ExecutorContext, item: Item, now: number, afterMs: number, followUps: { item: Item; operation: QueuedOperation }[]) {
  if (!consumedCopyDueLater(item, afterMs)) return;
  const operation = messageAt(ctx, item.latestOp!, item.key, 'a message merged with one due sooner comes back when due', now, item.latestDueAt!);
  markAsCopies(operation.message, item);
  followUps.push({ item, operation });
}
