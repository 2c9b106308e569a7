/**
 * The executor's working records: one `Item` per record a batch's messages name (its copies merged)
 * and the `Result` of its turn. Every part of the executor reads and fills these.
 */
import type { AttachmentRecord, ProvisionerRecord, RecordKey, VolumeRecord } from '../../domain/records.js';
import type { MutatingAction } from '../config.js';
import type { ClassifiedError } from '../errors.js';
import type { Decision } from '../planner.js';
import type { OperationKind, OperationOutcome, ProviderVolume, QueuedOperation, RecordChanges } from '../ports.js';

/** Where one record's turn ended: what to write and when to look again. */
export interface Result {
  outcome: OperationOutcome;
  latencyMs?: number;
  changes?: RecordChanges<VolumeRecord> | RecordChanges<AttachmentRecord>;
  remove?: boolean;
  /** Failures and throttling: the follow-up waits until then. */
  retryAtMs?: number;
  /** Other records to look at once this one is written (e.g. the volume after an attach). */
  alsoCheck?: QueuedOperation[];
  /**
   * The attachment's volume as this batch's DescribeVolumes saw it: written to the volume record
   * with the attachment's result, so `alsoCheck` (and its own DescribeVolumes) is needed only
   * when that write cannot be made.
   */
  volumeSeen?: ProviderVolume;
}

export interface Item {
  key: RecordKey;
  id: string;
  messageIds: string[];
  /** The first copy's operation. */
  hint: OperationKind;
  /** The operations its copies carried, each once, in the order delivered. */
  ops: OperationKind[];
  dueAt?: number;
  /** The latest `dueAt` of its copies: one due after the time it is acted on is consumed all the same. */
  latestDueAt?: number;
  /** The operation of the copy due at `latestDueAt`. */
  latestOp?: OperationKind;
  /** A token taken earlier for this operation from the shared budget, usable from then (`OperationMessage.tokenAt`). */
  tokenAt?: number;
  /** The operation of the copy that carried `tokenAt`: the token is for that operation's first call. */
  tokenOp?: OperationKind;
  /** Every copy was a look (`OperationMessage.nudge`: the reconciler's, or the watcher's): no chain of checks follows it. */
  nudgeOnly?: boolean;
  /** A copy was an operation's own message (no look, no check): a client's change, say, which a retry's backoff does not hold back. */
  ownMessage?: boolean;
  /** The next attempts its copies that were retries of failed attempts were sent for (`OperationMessage.retryOf`). */
  retriesOf?: string[];
  /** Every copy was a look or a retry of a failed attempt: only a look once the record no longer waits for that attempt (`retrySuperseded`). */
  looksAndRetriesOnly?: boolean;
  /** The operation starts the copies that were progress checks of a chain carried (`OperationMessage.chainOf`), looks left out. */
  chainOf?: string[];
  /** A copy that is no look and no check of a chain (an operation's message, a check the watcher or the executor sent once). */
  unchained?: boolean;
  record?: ProvisionerRecord;
  /**
   * The record is in the table but does not parse, or holds a claim or times the system did not
   * write (`judgeRecord`); or an attachment's volume record does not parse: nothing is done for it.
   */
  invalid?: 'record' | 'volume';
  /** The record as the table holds it and why it is rejected, when `invalid` is 'record'. */
  rejected?: { raw: ProvisionerRecord; reasons: string };
  volume?: VolumeRecord;
  attachments?: AttachmentRecord[];
  decision?: Decision;
  claimed?: boolean;
  result?: Result;
  /** Failed in our own infrastructure: report for redelivery. */
  infraFailed?: boolean;
  /** The most deliveries any of its copies has had (`ExecutorBatchItem.receiveCount`). */
  receiveCount?: number;
  /** Why a step of it threw (`stepFailed`), for the status written when its message is dead-lettered. */
  failure?: string;
  /** A progress check: acts without a claim, writes only a change, conditioned on the version it read. */
  observer?: boolean;
  /** The record's state when the batch read it. */
  readState?: string;
  /**
   * An attachment whose volume record is missing (or, detaching, written again since the detach
   * began): the owned EC2 volumes tagged with its volume id
   * (`findOwnedVolumes`), or why the search failed.
   */
  orphans?: ProviderVolume[] | ClassifiedError;
  /**
   * Claims with its pre-call status write (one conditional write on the version read) rather than
   * with a claim of its own: creates of pending volumes and attaches.
   */
  claimOnWrite?: boolean;
  /** That write found the record changed or held elsewhere: look again then, without acting now. */
  lookAgainAt?: number;
  /** When the invocation stops starting EC2 calls (epoch ms): its time left less INVOCATION_RESERVE_MS. */
  deadline?: number;
  /** A rate token reserved before the claim: the call may go at `atMs`. `shared`: from the shared budget, which takes no refunds. */
  token?: { action: MutatingAction; atMs: number; used: boolean; throttles: number; shared?: boolean };
}
