/**
 * What every mutating operation does around its EC2 call: the conditional write before it (which
 * takes the claim for operations that claim on it), and the call itself, made on the rate token
 * reserved for it (or one taken then), timed on the clock, its error classified.
 */
import type { ProvisionerRecord } from '../../domain/records.js';
import { RATE_BUCKET_OF, type MutatingAction } from '../config.js';
import { classifyError, errorMessage, type ClassifiedError } from '../errors.js';
import { ConditionFailedError, type RecordChanges, type WriteCondition, unchangedSince } from '../ports.js';
import type { ExecutorContext } from './context.js';
import type { Item } from './item.js';
import { sharedTokenNow, throttledShared } from './token-line.js';

/**
 * Runs one mutating call under its action's rate budget (at the time of the token reserved for
 * `item`, or on a token taken now); measures latency on the clock.
 */
export async function call<T>(ctx: ExecutorContext, item: Item, action: MutatingAction, run: () => Promise<T>): Promise<{ ok: true; value: T; latencyMs: number } | { ok: false; error: ClassifiedError; latencyMs: number }> {
  const bucket = ctx.buckets[RATE_BUCKET_OF[action]];
  const deadline = item.deadline ?? Number.POSITIVE_INFINITY;
  const outOfTime = { ok: false as const, latencyMs: 0, error: { outcome: 'throttled' as const, code: 'InvocationOutOfTime', message: `deferred: the invocation has no time left for ${action}`, notSent: true as const } };
  // Made now, its answer could come after the invocation ends: deferred unsent, as a call without a token is.
  if (ctx.deps.clock.now() >= deadline) return outOfTime;
  let fromShared: boolean;
  if (item.token && !item.token.used && RATE_BUCKET_OF[item.token.action] === RATE_BUCKET_OF[action]) {
    item.token.used = true;
    fromShared = item.token.shared === true;
    const waitMs = item.token.atMs - ctx.deps.clock.now();
    if (waitMs > 0) await ctx.deps.clock.sleep(waitMs);
    if (bucket.throttleCount !== item.token.throttles) {
      // EC2 throttled since the reservation, whose time assumed a rate that was too high: back off instead.
      // A token of this environment's share goes back to it; one of the shared budget was never its to give back (that budget takes no refunds).
      if (!fromShared) bucket.refund();
      return { ok: false, latencyMs: 0, error: { outcome: 'throttled', code: 'RateBudgetExceeded', message: `deferred: EC2 throttled ${action} calls of this environment`, notSent: true } };
    }
  } else {
    // No token reserved in this bucket (a tag change's second call, or one a look at EC2 showed due): one from the shared budget, else from this environment's share.
    // Waited for only until the invocation's deadline, as a reserved token is: a call made after it could lose its answer with the invocation.
    const waitMaxMs = Math.max(0, Math.min(ctx.config.rateWaitMaxMs, deadline - ctx.deps.clock.now()));
    const cutShort = waitMaxMs < ctx.config.rateWaitMaxMs;
    // A token usable only at the deadline is too late (no call starts once it is reached): not taken, so not spent.
    const shared = await sharedTokenNow(ctx, action, cutShort ? Math.max(0, waitMaxMs - 1) : waitMaxMs);
    fromShared = shared === 'taken';
    if (shared === 'none') {
      if (cutShort) return outOfTime;
      return { ok: false, latencyMs: 0, error: { outcome: 'throttled', code: 'RateBudgetExceeded', message: `deferred: the shared ${action} rate budget has no token soon enough`, notSent: true } };
    }
    if (shared === 'unavailable') {
      if (waitMaxMs > 0 && bucket.msUntilToken() <= waitMaxMs) {
        await bucket.take();
        // Calls queued for the bucket ahead of this one can make the wait longer than it looked; one
        // that ends at the deadline is too late as well (no call starts once the deadline is reached).
        if (ctx.deps.clock.now() >= deadline) {
          bucket.refund();
          return outOfTime;
        }
      } else if (!bucket.tryTake()) {
        if (cutShort && bucket.msUntilToken() <= ctx.config.rateWaitMaxMs) return outOfTime;
        return { ok: false, latencyMs: 0, error: { outcome: 'throttled', code: 'RateBudgetExceeded', message: `deferred: this invocation's ${action} rate budget is spent`, notSent: true } };
      }
    }
  }
  // Lately refused, this environment is held to its own share, slowed by the refusal, as well as to
  // the shared budget's token: someone outside the system may be spending EC2's tokens, which the
  // shared budget learns of only by a token per refusal. (Spending that share instead of the shared
  // budget's tokens overdrew EC2's bucket while the budget sold every refill to the others.)
  if (fromShared && bucket.ratePerSecond < ctx.config.rateBudgets[RATE_BUCKET_OF[action]].ratePerSecond) {
    if (!bucket.tryTake()) {
      return { ok: false, latencyMs: 0, error: { outcome: 'throttled', code: 'RateBudgetExceeded', message: `deferred: EC2 refused ${action} calls of this environment lately`, notSent: true } };
    }
  }
  const started = ctx.deps.clock.now();
  try {
    const value = await run();
    bucket.succeeded();
    return { ok: true, value, latencyMs: ctx.deps.clock.now() - started };
  } catch (error) {
    const classified = classifyError(action, error);
    if (classified.kind === 'unauthorized') {
      // In full here only: the record's status leaves the encoded policy evaluation out.
      ctx.deps.log.warn('EC2 refused the call: not authorized', { key: item.id, action, error: errorMessage(error) });
    }
    if (classified.outcome === 'throttled') {
      bucket.throttled();
      await throttledShared(ctx, RATE_BUCKET_OF[action]);
    }
    return { ok: false, error: classified, latencyMs: ctx.deps.clock.now() - started };
  }
}

/**
 * Conditional write before an EC2 call; undefined (and no call) if the record is gone, changed
 * or the claim lost. For an operation that claims on this write, the write takes the claim, on
 * the condition that the record is still the version the batch read (which no live claim held).
 * A write the table fails (not a condition) lets go of the claim and fails the item's message, so
 * Lambda delivers it again.
 */
export async function preWrite<R extends ProvisionerRecord>(
  ctx: ExecutorContext,
  item: Item,
  owner: string,
  now: number,
  changes: RecordChanges<R>,
  /** Held under a claim, what must still hold too (the generation the call was made of). */
  alsoUnchanged: WriteCondition = {},
): Promise<R | undefined> {
  const claiming = item.claimOnWrite === true && !item.claimed;
  const write = claiming ? { ...changes, claim: { owner, expiresAt: now + ctx.config.claimLeaseMs } } : changes;
  const condition = claiming ? unchangedSince(item.record!) : { claimOwner: owner, now: ctx.deps.clock.now(), ...alsoUnchanged };
  try {
    const written = await ctx.deps.store.update<R>(item.key, write as RecordChanges<R>, condition);
    if (claiming) item.claimed = true;
    return written;
  } catch (error) {
    if (error instanceof ConditionFailedError) {
      ctx.deps.log.info('record changed or deleted before the EC2 call; not calling', { key: item.id });
      item.result = { outcome: 'skipped' };
      // Still ours, changed by the client under it: the claim is let go at once, for the change's own operation.
      const stillOurs = !claiming && error.current?.claim?.owner === owner;
      item.claimed = stillOurs;
      // Nothing else plans it again once the claim goes (its change's own message may have found it held): this message does, at once.
      if (stillOurs) item.lookAgainAt = now;
      if (claiming && error.current) {
        // Held elsewhere: look again when that lease ends, in case its holder crashed; changed: look again soon.
        const held = error.current.claim && error.current.claim.owner !== owner ? error.current.claim.expiresAt : 0;
        item.lookAgainAt = Math.max(held, now + 1000);
      }
      return undefined;
    }
    ctx.deps.log.error('status write before the EC2 call failed', { key: item.id, error: errorMessage(error) });
    item.infraFailed = true;
    // No call was made. The claim this invocation holds (taken before this write, or by it: the table
    // may have made a write whose answer was lost) is let go, so the next message for the record (a
    // client's change, the reconciler's, this one delivered again) is not put off until the lease
    // ends; a record not held by this invocation is left as it is (the release is conditioned on the
    // owner), and a release the table fails too leaves the claim to lapse.
    try {
      await ctx.deps.store.release(item.key, owner);
    } catch (releaseError) {
      ctx.deps.log.warn('could not let go of the claim; it lapses with its lease', { key: item.id, error: errorMessage(releaseError) });
    }
    item.claimed = false;
    return undefined;
  }
}
