/**
 * The line for EC2's rate tokens: a batch's mutating operations reserve their tokens, in batch
 * order, before their records are claimed, from the budget shared by the environments (taken up
 * to a horizon ahead, the token travelling with the deferred message) or from this environment's
 * own buckets; an operation without a token soon enough is deferred to a message. EC2's
 * refusals for rate move the shared line back.
 */
import { RATE_BUCKET_OF, type MutatingAction, type RateBucket } from '../config.js';
import { errorMessage } from '../errors.js';
import { firstActionOf } from '../planner.js';
import type { OperationKind, QueuedOperation, TokensTaken } from '../ports.js';
import type { ExecutorContext } from './context.js';
import type { Item } from './item.js';
import { markAsCopies, message, resendLaterCopy } from './follow-ups.js';

/** The operation an item's decision calls for (items that reach token taking all decided one). */
function decidedOp(item: Item): OperationKind {
  return (item.decision as { op: OperationKind }).op;
}

/** The action whose rate token an item that reached token taking takes: its operation's first call. */
function tokenAction(item: Item): MutatingAction {
  return firstActionOf(decidedOp(item), item.record!)!;
}

/**
 * Reserves the rate tokens of the batch's mutating operations, in batch order, before their
 * records are claimed: from the shared budget when there is one (one take per EC2 bucket), else,
 * or when it cannot be reached, from this environment's share. Returns the operations that got
 * a token usable within `maxWaitMs`; the others are deferred (`deferUntil`). From the shared
 * budget an operation takes its token up to `tokenReservationHorizonMs` ahead and its deferred
 * message carries it, so the bucket serves operations in the order they first asked: without
 * that, an operation deferred early came back to find the tokens of its time taken by newer ones
 * and could be deferred again and again.
 */
export async function reserveTokens(
  ctx: ExecutorContext,
  items: Item[],
  now: number,
  maxWaitMs: number,
  followUps: { item: Item; operation: QueuedOperation }[],
  takeAhead: boolean,
): Promise<Item[]> {
  const byBucket = new Map<RateBucket, Item[]>();
  for (const item of items) {
    const bucket = RATE_BUCKET_OF[tokenAction(item)];
    const group = byBucket.get(bucket);
    if (group) group.push(item);
    else byBucket.set(bucket, [item]);
  }
  const granted = new Set<Item>();
  await Promise.all(
    [...byBucket].map(async ([bucket, group]) => {
      const fresh = spendTokensTaken(ctx, bucket, group, now, maxWaitMs, followUps, granted);
      // Only a message of the operation takes its token ahead (its own, or the reconciler's nudge
      // sent as the operation), also when delivered behind a check of the same record. A check
      // that plans a call takes what is usable now, and without it is dropped rather than
      // deferred: the operation's own message may already hold a token taken ahead, which the
      // check would only come back to take. If that message was lost after all, the reconciler
      // sends the operation once it is overdue past any token its message could hold.
      const ahead = takeAhead ? fresh.filter((item) => item.ops.some((op) => firstActionOf(op, item.record!) !== undefined)) : [];
      const nowOnly = fresh.filter((item) => !ahead.includes(item));
      await takeTokens(ctx, bucket, nowOnly, now, maxWaitMs, maxWaitMs, undefined, granted);
      await takeTokens(ctx, bucket, ahead, now, maxWaitMs, Math.max(maxWaitMs, ctx.config.tokenReservationHorizonMs), followUps, granted);
    }),
  );
  return items.filter((item) => granted.has(item));
}

/**
 * Items whose message carries a token of `bucket` taken for them earlier spend it, or, still
 * too far off, wait for it again; returns the others.
 */
function spendTokensTaken(
  ctx: ExecutorContext,
  bucket: RateBucket,
  items: Item[],
  now: number,
  maxWaitMs: number,
  followUps: { item: Item; operation: QueuedOperation }[],
  granted: Set<Item>,
): Item[] {
  const fresh: Item[] = [];
  for (const item of items) {
    const tokenAt = item.tokenAt;
    // The message's own operation took it, for the first call the record asks of it.
    const heldAction = item.tokenOp === undefined ? undefined : firstActionOf(item.tokenOp, item.record!);
    if (tokenAt === undefined || heldAction === undefined || RATE_BUCKET_OF[heldAction] !== bucket) fresh.push(item);
    else if (tokenAt - now <= maxWaitMs) grantShared(ctx, item, Math.max(now, tokenAt), granted);
    else deferUntil(ctx, item, decidedOp(item), tokenAction(item), now, tokenAt, followUps, tokenAt);
  }
  return fresh;
}

/**
 * Takes tokens of `bucket` for `items`, in order: from the shared budget up to `horizonMs`
 * ahead, else (or when it cannot be reached) from this environment's share. Those granted
 * within `maxWaitMs` go into `granted`; the others are deferred through `followUps` (a token
 * taken ahead travels with the message), or without `followUps` are dropped.
 */
async function takeTokens(
  ctx: ExecutorContext,
  bucket: RateBucket,
  items: Item[],
  now: number,
  maxWaitMs: number,
  horizonMs: number,
  followUps: { item: Item; operation: QueuedOperation }[] | undefined,
  granted: Set<Item>,
): Promise<void> {
  if (items.length === 0) return;
  const shared = await takeShared(ctx, bucket, items.length, now, horizonMs);
  if (!shared) {
    const deferred = new Map<RateBucket, number>();
    for (const item of items) if (reserveToken(ctx, item, decidedOp(item), now, maxWaitMs, deferred, followUps ?? [])) granted.add(item);
    return;
  }
  const { ratePerSecond } = ctx.config.accountRateBudgets[bucket];
  items.forEach((item, index) => {
    const op = decidedOp(item);
    const atMs = shared.usableAt[index];
    if (atMs !== undefined && atMs - now <= maxWaitMs) grantShared(ctx, item, atMs, granted);
    else if (!followUps) ctx.deps.metrics.operation({ operation: op, outcome: 'skipped' });
    else if (atMs !== undefined) deferUntil(ctx, item, op, tokenAction(item), now, atMs, followUps, atMs);
    // Beyond the horizon: back when the bucket's refill would have its token, to take one then.
    else deferUntil(ctx, item, op, tokenAction(item), now, shared.nextAt + ((index - shared.usableAt.length) * 1000) / ratePerSecond, followUps);
  });
}

/**
 * One token of `action`'s bucket from the shared budget for a call made now, waited for up to
 * `maxWaitMs` (`rateWaitMaxMs`, or less when the invocation has less time left): `taken`, `none`
 * (none soon enough: defer the call), or `unavailable` (no shared budget, or not to be used now,
 * as `takeShared` explains: spend this environment's share).
 */
export async function sharedTokenNow(ctx: ExecutorContext, action: MutatingAction, maxWaitMs = ctx.config.rateWaitMaxMs): Promise<'taken' | 'none' | 'unavailable'> {
  const now = ctx.deps.clock.now();
  const taken = await takeShared(ctx, RATE_BUCKET_OF[action], 1, now, maxWaitMs);
  if (!taken) return 'unavailable';
  const atMs = taken.usableAt[0];
  if (atMs === undefined) return 'none';
  if (atMs > now) await ctx.deps.clock.sleep(atMs - now);
  return 'taken';
}

function grantShared(ctx: ExecutorContext, item: Item, atMs: number, granted: Set<Item>) {
  const action = tokenAction(item);
  item.token = { action, atMs, used: false, throttles: ctx.buckets[RATE_BUCKET_OF[action]].throttleCount, shared: true };
  granted.add(item);
}

/**
 * Tokens from the shared budget; undefined without one, or when it fails (logged). It stays the
 * budget after a RequestLimitExceeded too, which it learns of (`throttledShared`), the refused
 * environment held to its own slowed share as well (`call`): one that spent its own share instead,
 * while the budget sold every refill to the others, overdrew EC2's bucket, and its refusals set
 * the others off in turn.
 */
async function takeShared(ctx: ExecutorContext, bucket: RateBucket, count: number, now: number, maxWaitMs: number): Promise<TokensTaken | undefined> {
  if (!ctx.deps.rateBudget) return undefined;
  try {
    return await ctx.deps.rateBudget.take(bucket, count, ctx.config.accountRateBudgets[bucket], now, maxWaitMs);
  } catch (error) {
    ctx.deps.log.warn('shared rate budget unavailable; spending this environment\'s share', { bucket, error: errorMessage(error) });
    return undefined;
  }
}

/**
 * EC2 refused a call of `bucket` for its rate (RequestLimitExceeded): its bucket held fewer tokens
 * than the shared budget counted (calls spent late, after refills had spilt; requests from outside
 * the system). One token is taken and not spent, so the budget sells one refill fewer: each
 * refusal moves the line back by one. Under a steady load from outside the system that alone
 * settles halfway between the budget and what EC2 leaves (test/unit/rate-budget-outside-load);
 * the refused environment's own slowed share (`call`) holds the rest back.
 */
export async function throttledShared(ctx: ExecutorContext, bucket: RateBucket): Promise<void> {
  if (!ctx.deps.rateBudget) return;
  try {
    await ctx.deps.rateBudget.take(bucket, 1, ctx.config.accountRateBudgets[bucket], ctx.deps.clock.now(), Number.POSITIVE_INFINITY);
  } catch (error) {
    ctx.deps.log.warn('shared rate budget unavailable; the refusal is not counted there', { bucket, error: errorMessage(error) });
  }
}

/**
 * Defers a mutating operation for want of a rate token: no claim, no status write, no attempt
 * used; its message is still a look or a retry if the item's copies were (`markAsCopies`).
 * `tokenAt`: the token already taken for it, which its message carries.
 */
function deferUntil(
  ctx: ExecutorContext,
  item: Item,
  op: OperationKind,
  action: MutatingAction,
  now: number,
  atMs: number,
  followUps: { item: Item; operation: QueuedOperation }[],
  tokenAt?: number,
) {
  const delaySeconds = Math.min(ctx.config.maxMessageDelaySeconds, Math.max(1, Math.ceil((atMs - now) / 1000)));
  const deferred = message(op, item.key, `waiting for the ${action} rate budget`);
  markAsCopies(deferred, item);
  if (tokenAt !== undefined) deferred.tokenAt = tokenAt;
  followUps.push({ item, operation: { message: deferred, delaySeconds } });
  resendLaterCopy(ctx, item, now, now + delaySeconds * 1000, followUps);
  ctx.deps.metrics.operation({ operation: op, outcome: 'throttled' });
}

/**
 * Reserves the rate token of a mutating operation before its record is claimed. When the token
 * is further off than this invocation may wait, the operation is deferred to a message due when
 * the token would be there (one refill interval apart per operation deferred before it in this
 * batch, so they come back spread out): no claim, no status write, no attempt used.
 */
function reserveToken(
  ctx: ExecutorContext,
  item: Item,
  op: OperationKind,
  now: number,
  maxWaitMs: number,
  deferred: Map<RateBucket, number>,
  followUps: { item: Item; operation: QueuedOperation }[],
): boolean {
  const action = tokenAction(item);
  const group = RATE_BUCKET_OF[action];
  const bucket = ctx.buckets[group];
  const waitMs = bucket.reserve();
  if (waitMs <= maxWaitMs) {
    item.token = { action, atMs: now + waitMs, used: false, throttles: bucket.throttleCount };
    return true;
  }
  bucket.refund();
  const ahead = deferred.get(group) ?? 0;
  deferred.set(group, ahead + 1);
  const dueInMs = waitMs / ctx.config.concurrentEnvironments + (ahead * 1000) / (bucket.ratePerSecond * ctx.config.concurrentEnvironments);
  deferUntil(ctx, item, op, action, now, now + dueInMs, followUps);
  return false;
}
