/**
 * Everything the engine talks to, as small interfaces. The engine itself is plain TypeScript;
 * AWS adapters (lib/aws), the in-memory implementations (lib/memory) and the simulator (bench/)
 * implement these.
 */
import { TABLE } from '../settings.js';
import type { RateBucket, RateBudget } from './config.js';
import type {
  AttachmentRecord,
  Life,
  ProvisionerRecord,
  RecordKey,
  VolumeRecord,
  VolumeSpec,
  VolumeType,
} from '../domain/records.js';

// ---------------------------------------------------------------------------------------------
// Clock
// ---------------------------------------------------------------------------------------------

/** Time, injected so that every time-dependent decision can be tested on a fake clock. */
export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
  /** Resolves after `ms` milliseconds of this clock's time. */
  sleep(ms: number): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Records
// ---------------------------------------------------------------------------------------------

/** A write's precondition. Every listed field must match; the record must exist. */
export interface WriteCondition {
  /** The claim on the record must be held by this owner (and not expired at `now`). */
  claimOwner?: string;
  /** Used with `claimOwner`: the claim must not have expired before this time (epoch ms). */
  now?: number;
  version?: number;
  life?: Life;
  generation?: number;
  /** The record is the one created then (not one deleted and created again under the same key). */
  createdAt?: string;
}

/**
 * The condition that `record` is still as it was read: the same version of the same copy. A record
 * removed and written again under its key starts its version again, so the version alone could
 * match a copy the reader never saw; its creation time tells them apart (when it has one).
 */
export function unchangedSince(record: { version: number; createdAt?: string }): WriteCondition {
  return record.createdAt ? { version: record.version, createdAt: record.createdAt } : { version: record.version };
}

type Fields<R> = Omit<R, 'kind' | 'volumeId' | 'instanceId' | 'version'>;
/** Attribute changes: a value sets the field, `null` removes it. `version` is bumped by the store. */
export type RecordChanges<R extends ProvisionerRecord = ProvisionerRecord> = {
  [K in keyof Fields<R>]?: Fields<R>[K] | null;
};

/** What no update may change: a record's identity, the version the store bumps, the attributes the table keys it by. */
const FIXED_FIELDS: ReadonlySet<string> = new Set([
  'kind',
  'volumeId',
  'instanceId',
  'version',
  TABLE.partitionKey,
  TABLE.sortKey,
  TABLE.instanceIndex.partitionKey,
  TABLE.instanceIndex.sortKey,
]);

/** Throws TypeError, before anything is written, when `changes` sets or removes a field no update may change. */
export function checkRecordChanges(changes: object): void {
  for (const [field, value] of Object.entries(changes)) {
    if (value !== undefined && FIXED_FIELDS.has(field)) throw new TypeError(`${field} cannot be changed by an update`);
  }
}

/** Thrown by a store when a write's condition does not hold (including "record does not exist"). */
export class ConditionFailedError extends Error {
  override readonly name = 'ConditionFailedError';
  constructor(
    message: string,
    /** The record as it is now, when the store could tell (undefined: it does not exist). */
    readonly current?: ProvisionerRecord,
  ) {
    super(message);
  }
}

export type ClaimResult =
  | { ok: true; record: ProvisionerRecord }
  | { ok: false; reason: 'held'; record: ProvisionerRecord }
  | { ok: false; reason: 'missing' };

/**
 * Thrown by a store when a write would make the item larger than the table allows (DynamoDB's
 * 400 KB, `TABLE.maxItemBytes`); nothing is written. Retrying the same write cannot help.
 */
export class ItemTooLargeError extends Error {
  override readonly name = 'ItemTooLargeError';
}

/** Thrown by `list` for a cursor the store did not produce (a client-supplied value gone wrong). */
export class InvalidCursorError extends Error {
  override readonly name = 'InvalidCursorError';
}

export interface Page<T> {
  items: T[];
  /** Opaque; pass back to get the next page. Absent on the last page. */
  cursor?: string;
}

/**
 * Part `index` of `total` disjoint parts that together hold every record (DynamoDB's parallel scan
 * segments): a volume and its attachments, one partition, always fall in the same part.
 */
export interface ScanSegment {
  index: number;
  total: number;
}

/** DynamoDB's bound on a parallel scan's segments. */
export const MAX_SCAN_SEGMENTS = 1_000_000;

/** Throws RangeError for a segment no store can scan (DynamoDB would refuse it). */
export function checkScanSegment({ index, total }: ScanSegment): void {
  if (!Number.isInteger(total) || total < 1 || total > MAX_SCAN_SEGMENTS) throw new RangeError(`segment total must be an integer from 1 to ${MAX_SCAN_SEGMENTS}, got ${total}`);
  if (!Number.isInteger(index) || index < 0 || index >= total) throw new RangeError(`segment index must be an integer from 0 to ${total - 1}, got ${index}`);
}

/** Throws RangeError for a page size that is not a positive integer (DynamoDB's Limit takes no other). */
export function checkPageLimit(limit: number): void {
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`limit must be a positive integer, got ${limit}`);
}

export interface ListOptions {
  limit: number;
  cursor?: string;
  kind?: 'volume' | 'attachment';
  /** Only this part of the table; a cursor then continues only the segment whose page returned it. */
  segment?: ScanSegment;
}

/**
 * The table of volume and attachment records.
 * Writes never create a record implicitly: `update` and `remove` fail on a missing record, so a
 * late status write can never resurrect a record that was deleted. `create` and `update` throw
 * ItemTooLargeError for a record the table cannot hold.
 */
export interface RecordStore {
  get(key: RecordKey): Promise<ProvisionerRecord | undefined>;
  /** Bulk read; records that do not exist are left out. */
  getMany(keys: RecordKey[]): Promise<ProvisionerRecord[]>;
  attachmentsOfVolume(volumeId: string): Promise<AttachmentRecord[]>;
  attachmentsOfInstance(instanceId: string): Promise<AttachmentRecord[]>;
  /** Every record (of `segment`, when given), a page at a time (reconciler, API listing). */
  list(options: ListOptions): Promise<Page<ProvisionerRecord>>;
  /** Inserts a new record; ConditionFailedError (with `current`) if the key is taken. */
  create(record: ProvisionerRecord): Promise<void>;
  /** Applies `changes` when `condition` holds; returns the record as written. */
  update<R extends ProvisionerRecord>(key: RecordKey, changes: RecordChanges<R>, condition?: WriteCondition): Promise<R>;
  /** Deletes the record when `condition` holds. */
  remove(key: RecordKey, condition?: WriteCondition): Promise<void>;
  /**
   * Takes the record's claim for `owner` until `now + leaseMs`, if it is unclaimed, expired or
   * already held by `owner`.
   */
  claim(key: RecordKey, owner: string, now: number, leaseMs: number): Promise<ClaimResult>;
  /** Drops the claim if `owner` still holds it; no error otherwise. */
  release(key: RecordKey, owner: string): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Operation queue (the retry schedule)
// ---------------------------------------------------------------------------------------------

export const OPERATION_KINDS = [
  'create-volume',
  'check-volume',
  'modify-volume',
  'tag-volume',
  'delete-volume',
  'attach',
  'check-attachment',
  'detach',
] as const;
export type OperationKind = (typeof OPERATION_KINDS)[number];

/**
 * "Look at this record now." The executor re-reads the record and re-plans, so a message is a
 * hint, never an order: a duplicate, late or stale message is harmless.
 */
export interface OperationMessage {
  op: OperationKind;
  key: RecordKey;
  /** Epoch ms before which the executor must not act; waits longer than one SQS delay chain. */
  dueAt?: number;
  /**
   * Epoch ms from which an EC2 request token taken for this operation from the shared budget may
   * be spent: the operation was deferred with its token already taken, so it comes back to spend
   * it instead of queueing for a new one behind operations asked for later.
   */
  tokenAt?: number;
  /**
   * A look: sent by the reconciler to look at a record that has been quiet, and by the watcher for
   * a client change of a record whose operation is under way. A look that finds the operation
   * still under way schedules no further checks of its own (the operation's own chain, if alive,
   * goes on; if lost, the reconciler looks again), so passes and client changes do not multiply
   * chains.
   */
  nudge?: true;
  /**
   * A progress check of an operation's chain: the operation's start (`status.operationStartedAt`)
   * when it was sent. One that finds the record under another operation (a look saw this one end
   * and the next one began, with a chain of its own) is only a look.
   */
  chainOf?: string;
  /**
   * The retry of a failed attempt of an operation's step: the `status.nextAttemptAt` it was sent
   * for. One that finds the record waiting for another attempt, or for none (an attempt made since:
   * a client's change brings one at once, which follows itself up), is only a look, held back by
   * that backoff. Only an operation's step is marked: a progress check goes unmarked (one sent after
   * its describe failed, or again for merged copies), as a check is never an operation's own message
   * (`ownMessage`), so there is no own message for the mark to turn into a look; a check of a chain
   * is judged by its `chainOf` instead.
   */
  retryOf?: string;
  /** Free text for logs: why this was scheduled. */
  reason?: string;
}

export interface QueuedOperation {
  message: OperationMessage;
  /** 0..900 whole seconds (SQS's maximum per-message delay). */
  delaySeconds: number;
}

export interface OperationQueue {
  /** Sends all; throws if any could not be sent after the adapter's own retries. */
  send(operations: QueuedOperation[]): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Shared rate budget (EC2's account-wide request buckets)
// ---------------------------------------------------------------------------------------------

/** Tokens taken from a shared bucket: when each may be used, and when to come back for the rest. */
export interface TokensTaken {
  /** When each granted token may be used (epoch ms), in order; fewer than asked when the rest would wait too long. */
  usableAt: number[];
  /** When the first token not granted would be usable: the time to come back for it. */
  nextAt: number;
}

/**
 * EC2's request buckets as one budget for every executor environment, kept where all of them see
 * it (a table), so one environment may spend a burst the others are not using.
 */
export interface SharedRateBudget {
  /**
   * Takes up to `count` tokens of `bucket` at `now`, each usable within `maxWaitMs` (see
   * `grantTokens`). Throws when the budget cannot be reached; the executor then spends its own
   * share instead.
   */
  take(bucket: RateBucket, count: number, budget: RateBudget, now: number, maxWaitMs: number): Promise<TokensTaken>;
  /**
   * How long a token of `bucket` taken at `now` would wait (ms), taking none: the line of calls
   * that took theirs ahead. 0 while the bucket has tokens (see `tokenWaitMs`).
   */
  waitMs(bucket: RateBucket, budget: RateBudget, now: number): Promise<number>;
}

// ---------------------------------------------------------------------------------------------
// Volume provider (EC2, at the level of the domain)
// ---------------------------------------------------------------------------------------------

export type ProviderVolumeState = 'creating' | 'available' | 'in-use' | 'deleting' | 'deleted' | 'error';
export type ProviderAttachmentState = 'attaching' | 'attached' | 'detaching' | 'detached' | 'busy';

export interface ProviderAttachment {
  instanceId: string;
  device: string;
  state: ProviderAttachmentState;
}

export interface ProviderVolume {
  ebsVolumeId: string;
  state: ProviderVolumeState;
  availabilityZone: string;
  sizeGiB: number;
  volumeType: VolumeType;
  iops?: number;
  throughput?: number;
  multiAttach: boolean;
  encrypted: boolean;
  attachments: ProviderAttachment[];
  tags: Record<string, string>;
}

export type ModificationState = 'modifying' | 'optimizing' | 'completed' | 'failed';

export interface ProviderModification {
  ebsVolumeId: string;
  state: ModificationState;
  targetSizeGiB?: number;
  targetVolumeType?: VolumeType;
  targetIops?: number;
  targetThroughput?: number;
  statusMessage?: string;
  /** When EC2 started it (epoch ms): EC2's limit of modifications per volume in 24 hours counts from here. */
  startedAt?: number;
}

export type InstanceState = 'pending' | 'running' | 'stopping' | 'stopped' | 'shutting-down' | 'terminated';

export interface ProviderInstance {
  instanceId: string;
  availabilityZone: string;
  state: InstanceState;
  /** Device names in the instance's block device mappings (root included). */
  deviceNames: string[];
}

export interface CreateVolumeRequest {
  /** Idempotency token recorded with the request on the volume record (`createVolumeClientToken`; at most 64 ASCII chars). */
  clientToken: string;
  availabilityZone: string;
  spec: VolumeSpec;
  /** Ownership tags the engine adds (record key, owning stack) plus the client's tags. */
  tags: Record<string, string>;
}

/** Tag changes of one volume: keys to set (added or changed) and keys to remove; never the ownership tags. */
export interface TagVolumeRequest {
  ebsVolumeId: string;
  set: Record<string, string>;
  remove: string[];
}

export interface ModifyVolumeRequest {
  ebsVolumeId: string;
  sizeGiB?: number;
  volumeType?: VolumeType;
  iops?: number;
  throughput?: number;
}

/**
 * What the engine needs of EC2. Implementations throw `ProviderError` with a classified kind;
 * they map provider error codes to kinds in exactly one table.
 */
export interface VolumeProvider {
  createVolume(request: CreateVolumeRequest): Promise<ProviderVolume>;
  /** One call for many ids (chunked only at the API maximum); ids that do not exist are left out. */
  describeVolumes(ebsVolumeIds: string[]): Promise<ProviderVolume[]>;
  /** Latest modification per volume; volumes never modified are left out. */
  describeVolumeModifications(ebsVolumeIds: string[]): Promise<ProviderModification[]>;
  /** One call for many ids; instances that do not exist are left out. */
  describeInstances(instanceIds: string[]): Promise<ProviderInstance[]>;
  attachVolume(request: { ebsVolumeId: string; instanceId: string; device: string }): Promise<void>;
  /**
   * `force`: EC2's forced detach, a last resort for a detach that cannot finish; the instance does
   * not flush its caches first, so data not yet written may be lost.
   */
  detachVolume(request: { ebsVolumeId: string; instanceId: string; device?: string; force?: boolean }): Promise<void>;
  deleteVolume(ebsVolumeId: string): Promise<void>;
  modifyVolume(request: ModifyVolumeRequest): Promise<void>;
  /** CreateTags with the keys to set; repeating it with the same tags is harmless. */
  createTags(ebsVolumeId: string, tags: Record<string, string>): Promise<void>;
  /** DeleteTags of these keys (whatever their values); keys the volume does not carry are ignored. */
  deleteTags(ebsVolumeId: string, keys: string[]): Promise<void>;
  /** Volumes carrying this deployment's ownership tag, a page at a time (leak detection). */
  listOwnedVolumes(options: { cursor?: string; limit: number }): Promise<Page<ProviderVolume>>;
  /**
   * Every volume carrying this deployment's ownership tag and `recordVolumeId` as its record tag
   * (all pages): how the EC2 volume of a volume record removed from the table is found again.
   */
  findOwnedVolumes(recordVolumeId: string): Promise<ProviderVolume[]>;
}

/**
 * What a provider error means to the engine. The executor decides, per operation, what each kind
 * does to a record (see lib/engine/errors.ts).
 */
export const PROVIDER_ERROR_KINDS = [
  /** Rate limited (RequestLimitExceeded, or anything else the SDK calls throttling, a 429 among them): wait, never counts as an attempt. */
  'throttled',
  /** The volume or instance does not exist. */
  'not-found',
  /** The resource is in a state that does not allow this yet (IncorrectState, VolumeInUse …). */
  'incorrect-state',
  /** The volume is already attached (to this or another instance). */
  'already-attached',
  /** The volume is not attached to that instance. */
  'not-attached',
  /** The device name is taken on the instance. */
  'device-in-use',
  /** Volume and instance are in different availability zones. */
  'zone-mismatch',
  /** Same ClientToken, different parameters. */
  'idempotency-mismatch',
  /** Missing IAM permission or KMS access. */
  'unauthorized',
  /** The request itself is invalid; retrying cannot help. */
  'invalid-request',
  /** An account or instance limit (volume count, IOPS, attachment slots). */
  'limit-exceeded',
  /** A modification of the volume is still under way (IncorrectModificationState). */
  'modification-in-progress',
  /**
   * The volume was modified too often (VolumeModificationRateExceeded): EC2 allows
   * `MODIFICATIONS_PER_WINDOW` modifications per volume in any `MODIFICATION_WINDOW_MS`.
   */
  'modification-cooldown',
  /** EC2-side fault (5xx, network, timeout): retry. */
  'transient',
] as const;
export type ProviderErrorKind = (typeof PROVIDER_ERROR_KINDS)[number];

export class ProviderError extends Error {
  override readonly name = 'ProviderError';
  constructor(
    readonly kind: ProviderErrorKind,
    /** The provider's own error code, e.g. `VolumeInUse`. */
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

// ---------------------------------------------------------------------------------------------
// Metrics
// ---------------------------------------------------------------------------------------------

export type OperationOutcome = 'succeeded' | 'in-progress' | 'retrying' | 'throttled' | 'failed' | 'skipped';

export interface Metrics {
  /** One data point per operation outcome, with the EC2 latency when a call was made. */
  operation(event: { operation: OperationKind; outcome: OperationOutcome; latencyMs?: number }): void;
  /** A plain counter, e.g. `LeakedVolumes`. */
  count(name: string, value?: number): void;
}

export type { AttachmentRecord, ProvisionerRecord, RecordKey, VolumeRecord };

// ---------------------------------------------------------------------------------------------
// Log
// ---------------------------------------------------------------------------------------------

/**
 * Attribute names the deployed functions' logger (Powertools) keeps for its own fields and drops
 * from a line's attributes: a failure's text goes under `error`, never `message`.
 */
export const RESERVED_LOG_KEYS: readonly string[] = ['level', 'message', 'sampling_rate', 'service', 'timestamp'];

/** Structured log; Powertools Logger satisfies it, tests use a recording one. Attribute names are never one of `RESERVED_LOG_KEYS`. */
export interface Log {
  debug(message: string, attributes?: Record<string, unknown>): void;
  info(message: string, attributes?: Record<string, unknown>): void;
  warn(message: string, attributes?: Record<string, unknown>): void;
  error(message: string, attributes?: Record<string, unknown>): void;
}
