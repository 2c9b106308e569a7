/**
 * Every number the engine decides with, in one object with documented defaults. Deployments and
 * tests override parts of it with `resolveEngineConfig({ ... })`.
 */
import { MAX_SCAN_SEGMENTS, OPERATION_KINDS, type OperationKind } from './ports.js';
import { EXECUTOR, QUEUE } from '../settings.js';

/** When to look again at work EC2 does asynchronously. */
export interface ProgressCheck {
  /** First check, close to the expected transition time (seconds). */
  firstSeconds: number;
  /** Later checks wait this fraction of the time already spent (rounded up to a whole second), so they grow with the wait. */
  growth: number;
  /** Longest wait between two checks (seconds). */
  maxSeconds: number;
  /**
   * Checks fall due on a shared grid of this many seconds (wall-clock multiples), so checks of
   * operations started within the same few seconds reach one executor batch and one
   * DescribeVolumes call. 1 (default): no alignment beyond whole seconds.
   */
  alignSeconds?: number;
}

/** A token bucket: `burst` calls at once (at least 1: a call takes a whole token), then `ratePerSecond` sustained. */
export interface RateBudget {
  burst: number;
  ratePerSecond: number;
  /**
   * While EC2 does not throttle, successes raise the rate step by step up to this (additive
   * increase); RequestLimitExceeded multiplies it by `throttleRateFactor`, a half by default
   * (multiplicative decrease). Default: `ratePerSecond`.
   */
  maxRatePerSecond?: number;
}

/** EC2 mutating actions the executor calls one resource at a time, each drawing on its EC2 bucket's budget (`RATE_BUCKET_OF`). */
export const MUTATING_ACTIONS = ['CreateVolume', 'AttachVolume', 'DetachVolume', 'DeleteVolume', 'ModifyVolume', 'CreateTags', 'DeleteTags'] as const;
export type MutatingAction = (typeof MUTATING_ACTIONS)[number];

/**
 * EC2's request buckets for those actions, each named after an action it meters: AttachVolume
 * for the mutating actions' bucket (AttachVolume, DetachVolume, ModifyVolume; DeleteTags here too).
 * Rate budgets and the shared budget's items are keyed by these names.
 */
export const RATE_BUCKETS = ['CreateVolume', 'AttachVolume', 'DeleteVolume', 'CreateTags'] as const;
export type RateBucket = (typeof RATE_BUCKETS)[number];

/**
 * Which budget each action draws on. EC2 meters AttachVolume, DetachVolume and ModifyVolume in
 * one request bucket ("mutating actions"), CreateVolume, DeleteVolume and CreateTags in their own
 * (EC2 API throttling docs). EC2 gives DeleteTags a bucket of its own too (100 tokens, 10 a second,
 * as CreateTags); the engine budgets it with the mutating actions, which is stricter.
 * The executor's own buckets and the shared budget follow the same grouping, one budget per bucket.
 */
export const RATE_BUCKET_OF: Readonly<Record<MutatingAction, RateBucket>> = {
  CreateVolume: 'CreateVolume',
  DeleteVolume: 'DeleteVolume',
  AttachVolume: 'AttachVolume',
  DetachVolume: 'AttachVolume',
  ModifyVolume: 'AttachVolume',
  CreateTags: 'CreateTags',
  DeleteTags: 'AttachVolume',
};

/**
 * EC2's account-wide request buckets at the standard limits (EC2 API throttling docs): size and
 * refill per second of the CreateVolume, mutating-action (here under AttachVolume), DeleteVolume
 * and CreateTags buckets.
 */
export const EC2_REQUEST_BUCKETS: Readonly<Record<RateBucket, RateBudget>> = {
  CreateVolume: { burst: 100, ratePerSecond: 5 },
  AttachVolume: { burst: 50, ratePerSecond: 5 },
  DeleteVolume: { burst: 100, ratePerSecond: 5 },
  CreateTags: { burst: 100, ratePerSecond: 10 },
};

/**
 * Each executor environment's rate budget per EC2 bucket (`rateBudgets`) when `environments` of them
 * spend EC2's `buckets` without a shared budget: an equal share of each bucket's refill and size,
 * so that together they stay within EC2's (the size at least one token, so beyond a bucket's size in
 * environments their bursts together exceed it). For EXECUTOR.maxConcurrency (5) environments and
 * EC2's standard buckets these are the defaults below.
 */
export function environmentRateBudgets(environments: number, buckets: Readonly<Record<RateBucket, RateBudget>> = EC2_REQUEST_BUCKETS): Record<RateBucket, RateBudget> {
  if (!Number.isInteger(environments) || environments < 1) throw new RangeError(`environments must be a positive integer, got ${environments}`);
  const share = (bucket: RateBucket): RateBudget => {
    const { burst, ratePerSecond } = buckets[bucket];
    return { burst: Math.max(1, Math.floor(burst / environments)), ratePerSecond: ratePerSecond / environments };
  };
  return Object.fromEntries(RATE_BUCKETS.map((bucket) => [bucket, share(bucket)])) as Record<RateBucket, RateBudget>;
}

/**
 * The EC2 action each mutating operation calls (first); operations not listed call none. Rate
 * tokens go by `firstActionOf`, which reads this.
 */
export const ACTION_OF: Readonly<Partial<Record<OperationKind, MutatingAction>>> = {
  'create-volume': 'CreateVolume',
  attach: 'AttachVolume',
  detach: 'DetachVolume',
  'delete-volume': 'DeleteVolume',
  'modify-volume': 'ModifyVolume',
  // Or DeleteTags alone, for a change that only removes keys: `firstActionOf` judges from the record.
  'tag-volume': 'CreateTags',
};

export interface EngineConfig {
  /** How long a claim on a record lasts (ms). Longer than one executor invocation, shorter than the queue's visibility timeout, so a crashed invocation's work is taken over by the redelivery. */
  claimLeaseMs: number;
  /** Progress-check schedule per asynchronous operation. */
  progressChecks: Record<OperationKind, ProgressCheck>;
  /** Failure backoff: `baseSeconds * 2^(attempt-1)`, capped (at least 1 s), with equal jitter; whole seconds. */
  backoff: { baseSeconds: number; capSeconds: number };
  /** Wait after RequestLimitExceeded: uniform in [min, max] seconds; never counts as an attempt. */
  throttleBackoff: { minSeconds: number; maxSeconds: number };
  /**
   * Looks again at a CreateVolume whose snapshot EC2 has not completed: a wait that uses no
   * attempt and may last hours, so it grows with the time waited; the maximum age ends it. No
   * `alignSeconds`: each volume waits on its own snapshot, so no grid is shared.
   */
  snapshotWait: Omit<ProgressCheck, 'alignSeconds'>;
  /** Largest delay of one queue message; longer waits are chained through `dueAt`. */
  maxMessageDelaySeconds: number;
  /**
   * How long the queue's event source gathers a batch after its first message arrives
   * (EXECUTOR.maxBatchingWindowSeconds): progress checks are sent to arrive that much early, so
   * their batch forms at the check's time rather than a window later.
   */
  queueBatchingWindowSeconds: number;
  /** Failed attempts before the record goes to terminal `error`. */
  maxAttempts: number;
  /** Time since the operation started after which it goes to terminal `error` (ms). */
  maxOperationAgeMs: number;
  /**
   * How long a just-created volume may be missing from DescribeVolumes, a just-started
   * modification from DescribeVolumesModifications, and a just-attached attachment from its
   * volume's attachments (eventual consistency), before the volume counts as lost, the
   * modification as done, the attachment as detached outside (ms).
   */
  describeGraceMs: number;
  /**
   * How long an executor environment reuses an instance it described (AZ and state) before
   * describing it again (ms). Device names in use come from the attachment records on top of the
   * cached mappings (which keep only the names no record held), and a failed attach drops the entry, so a stale entry costs at most one
   * failed AttachVolume (an AZ never changes). 0: describe on every batch.
   */
  instanceCacheTtlMs: number;
  /**
   * EC2's account-wide request buckets, spent by all executor environments together through a
   * `SharedRateBudget` when one is configured (each a few tokens below EC2's, so calls that reach
   * EC2 in another order than their tokens were taken still find one).
   */
  accountRateBudgets: Record<RateBucket, RateBudget>;
  /**
   * Rate budget per EC2 request bucket, per executor environment: each action spends its bucket's
   * (`RATE_BUCKET_OF`: the AttachVolume entry for DetachVolume, ModifyVolume and DeleteTags too),
   * as EC2 meters them. Spent without a shared budget, or when it cannot be reached; and, beside
   * the shared budget's tokens, while EC2 has lately refused this environment's calls for their
   * rate (slowed by the refusal).
   */
  rateBudgets: Record<RateBucket, RateBudget>;
  /**
   * Longest an invocation sleeps for a rate token (also bounded by the invocation's remaining
   * time); a call that would wait longer is deferred, before its record is claimed, to a delayed
   * message due when the token would be there: no write, no attempt used. 0: never sleep.
   */
  rateWaitMaxMs: number;
  /**
   * How far ahead an operation may take its token from the shared budget (ms). One that would
   * wait longer than `rateWaitMaxMs` for it is deferred with the token taken (`tokenAt` on its
   * message), so operations are served in the order they asked and none is overtaken again and
   * again by newer ones; beyond this horizon it is deferred without a token, comes back when the
   * refill would have it and takes one then, behind whoever asked meanwhile. 0: never take ahead
   * of `rateWaitMaxMs`.
   */
  tokenReservationHorizonMs: number;
  /**
   * Executor environments that may run at once and share EC2's buckets (EXECUTOR.maxConcurrency;
   * a deployment's `executorMaxConcurrency`, through EXECUTOR_MAX_CONCURRENCY).
   * Operations deferred for want of a token come back spread at the rate all of them together may
   * use, so other environments take them up rather than all waiting for this one's budget.
   */
  concurrentEnvironments: number;
  /**
   * After RequestLimitExceeded the action's rate is multiplied by this, down to a sixteenth of its
   * budget's rate at the least, and its burst is dropped; each success then gives back a twentieth
   * of the budget's rate, up to `maxRatePerSecond`.
   */
  throttleRateFactor: number;
  /**
   * Ids the engine hands the provider in one describe of volumes (and their modifications) or of
   * instances: at most one page of EC2's answer (MaxResults: DescribeVolumes 500, DescribeInstances
   * 1000). The EC2 adapter sends them in calls of at most 200 ids (EC2's limit on filter values).
   */
  describeChunkSize: { volumes: number; instances: number };
  /** Device names the executor may allocate, in order of preference. */
  deviceNames: readonly string[];
  /** Value of the ownership tag put on every volume (the owning stack / deployment). */
  ownerTagValue: string;
  /**
   * Parallel scan segments the reconciler divides the record table into (RECONCILER_SCAN_SEGMENTS).
   * A pass short of time scans whole segments from one that turns with each pass, so passes
   * together cover a table too large for one; each segment must fit in one pass. 1: a plain scan.
   */
  reconcilerScanSegments: number;
}

function letters(from: string, to: string): string[] {
  const out: string[] = [];
  for (let code = from.charCodeAt(0); code <= to.charCodeAt(0); code++) out.push(String.fromCharCode(code));
  return out;
}

/**
 * Linux device names: EC2 recommends /dev/sd[f-p] for EBS volumes; /dev/sd[q-z] are also valid,
 * and /dev/xvd[b-c][a-z] extend the pool for instances with many attachments.
 */
export const DEFAULT_DEVICE_NAMES: readonly string[] = [
  ...letters('f', 'z').map((letter) => `/dev/sd${letter}`),
  ...letters('b', 'c').flatMap((first) => letters('a', 'z').map((second) => `/dev/xvd${first}${second}`)),
];

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/**
 * Defaults. Rate budgets: EC2's account-wide buckets for CreateVolume, DeleteVolume and the
 * mutating actions each refill 5 tokens per second (buckets of 100, 100 and 50), CreateTags's 10 (a
 * bucket of 100; EC2 API throttling docs, `EC2_REQUEST_BUCKETS`). With a shared budget the environments spend those buckets together (less a reserve of 5
 * tokens: measured, no RequestLimitExceeded in bursts of 100 to 10 000), so the first one to see a
 * burst may spend all of it. Without one, when it cannot be reached, or while EC2 has lately
 * throttled an environment (someone else spends the same tokens), each of the
 * EXECUTOR.maxConcurrency (5) environments takes a fifth of the refill and of the burst, so
 * together they never overrun EC2 either (a deployment with another number of environments gives
 * each the same share for its number: `environmentRateBudgets`). Either way an invocation waits for tokens up to 10 s and
 * defers the rest, spread at the account's rate, so idle environments take them up. Probing above
 * the share (`maxRatePerSecond`) was measured to trade a few percent of makespan for hundreds of
 * throttled calls, so it is off by default.
 */
export const DEFAULT_ENGINE_CONFIG: EngineConfig = {
  claimLeaseMs: 3 * MINUTE,
  progressChecks: {
    // gp3 volumes without a snapshot are available within seconds; snapshot restores take longer.
    'create-volume': { firstSeconds: 2, growth: 0.5, maxSeconds: 120, alignSeconds: 2 },
    'check-volume': { firstSeconds: 2, growth: 0.5, maxSeconds: 120, alignSeconds: 2 },
    // Size changes reach `optimizing` in seconds; performance changes take minutes to hours.
    'modify-volume': { firstSeconds: 15, growth: 0.5, maxSeconds: 600 },
    // EBS medians: delete ~1 s, attach and detach ~2 s. Detach and delete gate nobody waiting,
    // so their checks take a coarser grid (fewer DescribeVolumes) than create and attach.
    'delete-volume': { firstSeconds: 1, growth: 0.5, maxSeconds: 120, alignSeconds: 4 },
    attach: { firstSeconds: 2, growth: 0.5, maxSeconds: 60, alignSeconds: 2 },
    'check-attachment': { firstSeconds: 2, growth: 0.5, maxSeconds: 60, alignSeconds: 2 },
    detach: { firstSeconds: 2, growth: 0.5, maxSeconds: 120, alignSeconds: 4 },
    // Tagging is synchronous: nothing to check afterwards (only the schedule's shape is shared).
    'tag-volume': { firstSeconds: 2, growth: 0.5, maxSeconds: 60 },
  },
  backoff: { baseSeconds: 2, capSeconds: 900 },
  throttleBackoff: { minSeconds: 2, maxSeconds: 20 },
  // A snapshot of a large volume may stay pending for hours: after half an hour, a call every 15 minutes.
  snapshotWait: { firstSeconds: 2, growth: 0.5, maxSeconds: 900 },
  maxMessageDelaySeconds: QUEUE.maxDelaySeconds,
  queueBatchingWindowSeconds: EXECUTOR.maxBatchingWindowSeconds,
  maxAttempts: 8,
  maxOperationAgeMs: 6 * HOUR,
  describeGraceMs: 2 * MINUTE,
  instanceCacheTtlMs: HOUR,
  accountRateBudgets: {
    // EC2's buckets (100 / 5 per second, 50 / 5, 100 / 5, CreateTags 100 / 10) less a reserve of 5 tokens.
    CreateVolume: { burst: 95, ratePerSecond: 5 },
    AttachVolume: { burst: 45, ratePerSecond: 5 },
    DeleteVolume: { burst: 95, ratePerSecond: 5 },
    CreateTags: { burst: 95, ratePerSecond: 10 },
  },
  rateBudgets: {
    // A fifth of EC2's buckets each (100, 50, 100, 100; refill 5, 5, 5, 10 a second), for up to
    // EXECUTOR.maxConcurrency (5) environments: `environmentRateBudgets(5)`.
    CreateVolume: { burst: 20, ratePerSecond: 1 },
    AttachVolume: { burst: 10, ratePerSecond: 1 },
    DeleteVolume: { burst: 20, ratePerSecond: 1 },
    CreateTags: { burst: 20, ratePerSecond: 2 },
  },
  rateWaitMaxMs: 10_000,
  // A burst's whole line at EC2's standard pace (18 000 calls an hour per bucket), so calls are
  // served in order; a message waits at most QUEUE.maxDelaySeconds, so a token an hour off takes
  // four hops to reach.
  tokenReservationHorizonMs: HOUR,
  concurrentEnvironments: EXECUTOR.maxConcurrency,
  throttleRateFactor: 0.5,
  // The APIs' page maxima (MaxResults): DescribeVolumes 500, DescribeInstances 1000; the EC2 adapter
  // splits a chunk into calls of 200 ids (EC2's limit on filter values).
  describeChunkSize: { volumes: 500, instances: 1000 },
  deviceNames: DEFAULT_DEVICE_NAMES,
  ownerTagValue: 'ebs-provisioner',
  // A pass scans about 90 000 records (a page of 500 a second for the 180 s of a 240 s invocation it
  // may scan): 8 segments cover some 700 000 within 8 passes (40 minutes). One segment cannot: a
  // pass short of time would start it over each time, never reaching its tail.
  reconcilerScanSegments: 8,
};

/**
 * A rate budget keyed by anything but an EC2 request bucket would never be read (each action
 * spends its bucket's: `RATE_BUCKET_OF`), so it is refused rather than silently ignored.
 */
function checkBucketKeys(name: 'rateBudgets' | 'accountRateBudgets', budgets: object | undefined): void {
  for (const key of Object.keys(budgets ?? {})) {
    if ((RATE_BUCKETS as readonly string[]).includes(key)) continue;
    const hint = Object.hasOwn(RATE_BUCKET_OF, key) ? `; ${key} spends the ${RATE_BUCKET_OF[key as MutatingAction]} entry` : '';
    throw new RangeError(`${name}.${key} is not an EC2 request bucket (${RATE_BUCKETS.join(', ')})${hint}`);
  }
}

/** A progress-check schedule under anything but an operation's name would never be read either: refused too. */
function checkOperationKeys(checks: object | undefined): void {
  for (const key of Object.keys(checks ?? {})) {
    if ((OPERATION_KINDS as readonly string[]).includes(key)) continue;
    throw new RangeError(`progressChecks.${key} is not an operation (${OPERATION_KINDS.join(', ')})`);
  }
}

/** Lambda's longest batching window for an SQS event source (MaximumBatchingWindowInSeconds). */
const MAX_BATCHING_WINDOW_SECONDS = 300;

function refuse(name: string, rule: string, value: unknown): never {
  throw new RangeError(`${name} must be ${rule}, got ${String(value)}`);
}

function integerIn(name: string, value: number, min: number, max: number): void {
  if (!Number.isInteger(value) || value < min || value > max) refuse(name, `an integer from ${min} to ${max}`, value);
}

function positiveInteger(name: string, value: number): void {
  if (!Number.isInteger(value) || value < 1) refuse(name, 'a positive integer', value);
}

function positive(name: string, value: number): void {
  if (!Number.isFinite(value) || value <= 0) refuse(name, 'a positive number', value);
}

function notNegative(name: string, value: number): void {
  if (!Number.isFinite(value) || value < 0) refuse(name, 'a number of at least 0', value);
}

function checkSchedule(name: string, check: ProgressCheck): void {
  if (typeof check !== 'object' || check === null) refuse(name, 'a schedule (firstSeconds, growth, maxSeconds)', check);
  notNegative(`${name}.firstSeconds`, check.firstSeconds);
  notNegative(`${name}.growth`, check.growth);
  notNegative(`${name}.maxSeconds`, check.maxSeconds);
  if (check.alignSeconds !== undefined) positiveInteger(`${name}.alignSeconds`, check.alignSeconds);
}

function checkBudgets(name: string, budgets: Record<RateBucket, RateBudget>): void {
  for (const [bucket, budget] of Object.entries(budgets)) {
    if (typeof budget !== 'object' || budget === null) refuse(`${name}.${bucket}`, 'a rate budget (burst, ratePerSecond)', budget);
    // Every call takes a whole token, and the refill stops at the burst: below 1 no call is ever made.
    if (!(budget.burst >= 1) || !Number.isFinite(budget.burst)) refuse(`${name}.${bucket}.burst`, 'a number of at least 1 (a call takes a whole token)', budget.burst);
    positive(`${name}.${bucket}.ratePerSecond`, budget.ratePerSecond);
    if (budget.maxRatePerSecond !== undefined && !(budget.maxRatePerSecond >= budget.ratePerSecond && Number.isFinite(budget.maxRatePerSecond))) {
      refuse(`${name}.${bucket}.maxRatePerSecond`, `a number of at least ratePerSecond (${budget.ratePerSecond})`, budget.maxRatePerSecond);
    }
  }
}

/**
 * The numbers a config may hold, each refused (RangeError naming the setting, the rule and the
 * value) when the engine could not work with it: a queue delay SQS would refuse (whole seconds, 1
 * to QUEUE.maxDelaySeconds, 900: a longer wait is chained; 0 would chain it forever), a batching
 * window Lambda would refuse (whole seconds, 0 to 300), a backoff cap below the 1 s every retry
 * waits, a count that is not a whole number, a duration or rate that is negative or not a number,
 * a budget that never refills or never holds a whole token (a burst below 1), a describe chunk
 * beyond one page of EC2's answer, scan segments beyond DynamoDB's limit.
 */
function checkNumbers(config: EngineConfig): void {
  positive('claimLeaseMs', config.claimLeaseMs);
  for (const [op, check] of Object.entries(config.progressChecks)) checkSchedule(`progressChecks.${op}`, check);
  notNegative('backoff.baseSeconds', config.backoff.baseSeconds);
  // Every failure waits at least a second, so a cap below one could never hold.
  if (!(config.backoff.capSeconds >= 1) || !Number.isFinite(config.backoff.capSeconds)) {
    refuse('backoff.capSeconds', 'a number of at least 1 (every retry waits at least a second)', config.backoff.capSeconds);
  }
  notNegative('throttleBackoff.minSeconds', config.throttleBackoff.minSeconds);
  if (!(config.throttleBackoff.maxSeconds >= config.throttleBackoff.minSeconds) || !Number.isFinite(config.throttleBackoff.maxSeconds)) {
    refuse('throttleBackoff.maxSeconds', `a number of at least minSeconds (${config.throttleBackoff.minSeconds})`, config.throttleBackoff.maxSeconds);
  }
  checkSchedule('snapshotWait', config.snapshotWait);
  const snapshotAlign = (config.snapshotWait as ProgressCheck).alignSeconds;
  // Set, it would be taken and never used.
  if (snapshotAlign !== undefined) refuse('snapshotWait.alignSeconds', 'left unset (a snapshot wait falls on no shared grid)', snapshotAlign);
  integerIn('maxMessageDelaySeconds', config.maxMessageDelaySeconds, 1, QUEUE.maxDelaySeconds);
  integerIn('queueBatchingWindowSeconds', config.queueBatchingWindowSeconds, 0, MAX_BATCHING_WINDOW_SECONDS);
  positiveInteger('maxAttempts', config.maxAttempts);
  positive('maxOperationAgeMs', config.maxOperationAgeMs);
  notNegative('describeGraceMs', config.describeGraceMs);
  notNegative('instanceCacheTtlMs', config.instanceCacheTtlMs);
  checkBudgets('accountRateBudgets', config.accountRateBudgets);
  checkBudgets('rateBudgets', config.rateBudgets);
  notNegative('rateWaitMaxMs', config.rateWaitMaxMs);
  notNegative('tokenReservationHorizonMs', config.tokenReservationHorizonMs);
  positiveInteger('concurrentEnvironments', config.concurrentEnvironments);
  if (!(config.throttleRateFactor > 0 && config.throttleRateFactor <= 1)) refuse('throttleRateFactor', 'above 0 and at most 1', config.throttleRateFactor);
  integerIn('describeChunkSize.volumes', config.describeChunkSize.volumes, 1, 500);
  integerIn('describeChunkSize.instances', config.describeChunkSize.instances, 1, 1000);
  integerIn('reconcilerScanSegments', config.reconcilerScanSegments, 1, MAX_SCAN_SEGMENTS);
}

/** The settings that hold settings of their own, merged per key over the defaults. */
const NESTED_SETTINGS = ['progressChecks', 'backoff', 'throttleBackoff', 'snapshotWait', 'accountRateBudgets', 'rateBudgets', 'describeChunkSize'] as const;

/**
 * Deep-enough merge of a partial config over the defaults (nested records merge per key). A rate
 * budget under a key that is not an EC2 request bucket is refused (RangeError), as is a progress
 * check under one that is not an operation, an entry of either that holds no budget or schedule,
 * a nested setting given as anything but an object, and a number the engine could not work with
 * (`checkNumbers`).
 */
export function resolveEngineConfig(partial: Partial<EngineConfig> = {}): EngineConfig {
  for (const name of NESTED_SETTINGS) {
    const given: unknown = partial[name];
    // Spread over the defaults, a number or a list would vanish without a word.
    if (given !== undefined && (typeof given !== 'object' || given === null || Array.isArray(given))) refuse(name, 'an object of settings', given);
  }
  checkBucketKeys('rateBudgets', partial.rateBudgets);
  checkBucketKeys('accountRateBudgets', partial.accountRateBudgets);
  checkOperationKeys(partial.progressChecks);
  const config: EngineConfig = {
    ...DEFAULT_ENGINE_CONFIG,
    ...partial,
    progressChecks: { ...DEFAULT_ENGINE_CONFIG.progressChecks, ...partial.progressChecks },
    backoff: { ...DEFAULT_ENGINE_CONFIG.backoff, ...partial.backoff },
    throttleBackoff: { ...DEFAULT_ENGINE_CONFIG.throttleBackoff, ...partial.throttleBackoff },
    snapshotWait: { ...DEFAULT_ENGINE_CONFIG.snapshotWait, ...partial.snapshotWait },
    accountRateBudgets: { ...DEFAULT_ENGINE_CONFIG.accountRateBudgets, ...partial.accountRateBudgets },
    rateBudgets: { ...DEFAULT_ENGINE_CONFIG.rateBudgets, ...partial.rateBudgets },
    describeChunkSize: { ...DEFAULT_ENGINE_CONFIG.describeChunkSize, ...partial.describeChunkSize },
  };
  checkNumbers(config);
  return config;
}
