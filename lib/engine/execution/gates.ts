/**
 * Whether a record's message is acted on now, before it is claimed: a check that came before its
 * time, a look at a record whose failed attempt waits out its backoff, a record another invocation
 * holds, and a message of an operation's chain that another operation replaced. One held back is
 * sent again for its time (or kept as only a look).
 */
import { CHECK_OPERATIONS, planAttachment, planVolume } from '../planner.js';
import type { OperationKind, QueuedOperation } from '../ports.js';
import { alignedCheckAtMs } from '../schedule.js';
import { operationStartMs, pendingRetryAtMs } from '../status.js';
import type { ExecutorContext } from './context.js';
import type { Item } from './item.js';
import { IN_PROGRESS, chained, resend, checkAt, resendLaterCopy } from './follow-ups.js';

/**
 * Whether every copy of the item that is no look is a progress check of the chain of an
 * operation other than the record's (`OperationMessage.chainOf`): a look saw that operation end
 * and the next one begin, which has its own chain. The item is then only a look, so the chains do
 * not double. A copy without a chain (an operation's message, the watcher's) or a record with no
 * operation start leaves it as it is, and so does a copy delivered before: an invocation that
 * acted on it may have started the record's operation and failed before sending that
 * operation's first check, which this message, delivered again, is then the only one to make.
 */
export function chainEnded(ctx: ExecutorContext, item: Item): boolean {
  const started = item.record?.status.operationStartedAt;
  if (item.nudgeOnly || item.unchained || !item.chainOf?.length || started === undefined || item.chainOf.includes(started)) return false;
  if ((item.receiveCount ?? 1) > 1) return false;
  ctx.deps.log.debug("a check of an earlier operation's chain; looking only", { key: item.id, chainOf: item.chainOf, operationStartedAt: started });
  return true;
}

/**
 * Whether the item's copies are looks and retries of failed attempts the record no longer waits
 * for (its `nextAttemptAt` is another, or gone): an attempt was made since (a client's change
 * brings one at once), which follows itself up, with a chain of checks if it started an
 * operation. The item is then only a look, so that chain is not doubled (a modification may stay
 * `modifying` for hours). One delivered before is left as it is, as in `chainEnded`.
 */
export function retrySuperseded(item: Item): boolean {
  if (item.nudgeOnly || !item.looksAndRetriesOnly || !item.retriesOf || (item.receiveCount ?? 1) > 1) return false;
  const next = item.record?.status.nextAttemptAt;
  return next === undefined || !item.retriesOf.includes(next);
}

/**
 * Whether another invocation holds a live claim on the record (an operation under way there): a
 * check then looks again when that claim ends instead of writing beside it, in whole seconds as
 * SQS delays are (a claim ending within the second: a second later, never at once).
 */
export function heldByOther(ctx: ExecutorContext, item: Item, now: number, followUps: { item: Item; operation: QueuedOperation }[]): boolean {
  const claim = item.record?.claim;
  if (!claim || claim.expiresAt <= now) return false;
  resend(ctx, item, 'claimed by another invocation', now, Math.max(claim.expiresAt, now + 1000), followUps);
  ctx.deps.metrics.operation({ operation: item.hint, outcome: 'skipped' });
  return true;
}

/**
 * Whether a check reached here before its time: a message for an operation that another
 * message (or this invocation) has already started. The check then comes back on its grid
 * point, as one of that operation's chain (`OperationMessage.chainOf`), rather than describing
 * now, when EC2 cannot have finished yet. Past that point the
 * operation's chain of checks is under way, so the operation's own message (`ownMessage`) is only
 * a look (`nudgeOnly`), as in `chainEnded`, unless a copy is a check of that chain or it was
 * delivered before (its invocation may have started the operation and failed before sending the
 * first check). A look is one already, and a retry of a failed attempt is judged by
 * `retrySuperseded` (a look once the record no longer waits for that attempt). An operation's
 * message that waited longer than one queue delay (carried on through `dueAt`) is judged the same.
 */
export function checkNotDue(ctx: ExecutorContext, item: Item, op: OperationKind, now: number, followUps: { item: Item; operation: QueuedOperation }[]): boolean {
  // The first copy's kind decides: a check merged behind the operation's message is sent again, as a check, for its grid point.
  if (CHECK_OPERATIONS.has(item.hint)) return false;
  const record = item.record!;
  const schedule = IN_PROGRESS[record.status.state];
  const started = operationStartMs(record.status);
  if (!schedule || started === undefined) return false;
  const dueAtMs = alignedCheckAtMs(schedule, started + ctx.config.progressChecks[schedule].firstSeconds * 1000, ctx.config);
  if (dueAtMs <= now) {
    const ofChain = item.chainOf?.includes(record.status.operationStartedAt!);
    if (item.ownMessage && !ofChain && (item.receiveCount ?? 1) === 1) item.nudgeOnly = true;
    return false;
  }
  followUps.push({ item, operation: chained(checkAt(ctx, op, item.key, 'operation already started; checking at its time', now, dueAtMs), record) });
  resendLaterCopy(ctx, item, now, dueAtMs, followUps);
  ctx.deps.metrics.operation({ operation: item.hint, outcome: 'skipped' });
  return true;
}

/**
 * Whether a look (every copy a check or a nudge: an attachment's change, a pass of the
 * reconciler) reached a record whose failed operation waits out its backoff
 * (`status.nextAttemptAt`): the attempt, or the check that comes first (an attach that may have
 * taken), is not made before that time, when the failed attempt's own message brings it, rather
 * than as often as looks come. A client's change (the watcher sends it as the operation's own
 * message) and a wait for EC2's modification limit (no backoff of a failure) are not held back,
 * nor is that attempt's own retry (`OperationMessage.retryOf`); the retry of an earlier attempt
 * is a look (a client's change brought the operation at once, whose failure sent its own retry),
 * also when it holds a rate token. A look delivered again (its invocation failed, perhaps before
 * sending that message), or holding a token, comes back then.
 */
export function retryNotDue(ctx: ExecutorContext, item: Item, op: OperationKind, now: number, followUps: { item: Item; operation: QueuedOperation }[]): boolean {
  const record = item.record!;
  const status = record.status;
  const atMs = pendingRetryAtMs(status, now);
  if (atMs === undefined || item.ownMessage || item.retriesOf?.includes(status.nextAttemptAt!)) return false;
  // A check the look asked of a record with no step of its own to take (`plan`: a volume at rest synced with EC2) is no part of the retry.
  if (CHECK_OPERATIONS.has(op) && (record.kind === 'attachment' ? planAttachment(record, item.volume) : planVolume(record, item.attachments ?? [], now)).type !== 'operation') return false;
  // Delivered again, it stands in for the retry its invocation may not have sent; a token taken
  // ahead comes back with it (`resend`), for that attempt to spend rather than queue for another.
  if ((item.receiveCount ?? 1) > 1 || item.tokenAt !== undefined) resend(ctx, item, 'next attempt not due yet', now, atMs, followUps, status.nextAttemptAt);
  else resendLaterCopy(ctx, item, now, atMs, followUps);
  ctx.deps.metrics.operation({ operation: item.hint, outcome: 'skipped' });
  return true;
}
