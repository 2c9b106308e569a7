/**
 * The rejection of a record that is not valid (written straight into the table), or whose claim
 * or times the system did not write (`notWrittenBySystem`): status `error`, code `InvalidRecord`,
 * with the reasons, until its client puts it right. The watcher writes it
 * when a change brings the record; the executor when the reconciler finds an invalid record
 * without it (its change lost on the way), so every invalid record says why in the end.
 */
import { keyString, type ProvisionerRecord, type RecordKey } from '../domain/records.js';
import { describeValidationIssues, parseRecord, REASON_SEPARATOR } from '../domain/validation.js';
import { METRICS } from '../settings.js';
import { ConditionFailedError, unchangedSince, type Clock, type Log, type Metrics, type RecordChanges, type RecordStore } from './ports.js';
import { invalidRecordStatus, INVALID_RECORD_CODE } from './status.js';

/** Logged for a record that cannot take its rejection because the table cannot hold it any larger. */
export const RECORD_TOO_LARGE_LOG = 'record too large for the table to take the status that rejects it; left as it is';

export interface RejectionDeps {
  store: RecordStore;
  clock: Clock;
  metrics: Metrics;
  log: Log;
}

function field(image: unknown, name: string): unknown {
  return image && typeof image === 'object' ? (image as Record<string, unknown>)[name] : undefined;
}

/**
 * Why a record's claim cannot be one the system took: it ends more than twice the lease
 * (`claimLeaseMs`) after `nowMs`, where every claim the system writes ends one lease after it was
 * taken. Written straight into the table, such a claim would keep every executor off the record
 * for as long as it says (years, if it says so), the record left as it is without a word.
 */
function claimBeyondLease(record: ProvisionerRecord, nowMs: number, leaseMs: number): string | undefined {
  const expiresAt = record.claim?.expiresAt;
  if (expiresAt === undefined || expiresAt <= nowMs + 2 * leaseMs) return undefined;
  const ends = Math.abs(expiresAt) <= 8.64e15 ? new Date(expiresAt).toISOString() : String(expiresAt);
  return `claim.expiresAt: ends at ${ends}, beyond the ${leaseMs / 1000} s lease the system takes (claims are the system's to write): remove it`;
}

/** How far ahead of a function's clock a time another function wrote may be: their clocks differ by far less. */
export const CLOCK_SKEW_MS = 60_000;

/**
 * Why a record's times cannot be ones the system wrote: `status.updatedAt`,
 * `status.operationStartedAt` or `modificationSentAt` more than a minute after `nowMs`, where the
 * system writes each as the time of its write (never later). Written straight into the table, such
 * a time would keep the record fresh for as long as it says: never overdue to the reconciler, an
 * attached volume gone from EC2 taken for a describe that lags, a ModifyVolume looked for without
 * end. A record at rest only falls behind the clock, so it is never judged by this.
 */
function timesAhead(record: ProvisionerRecord, nowMs: number): string | undefined {
  const limitMs = nowMs + CLOCK_SKEW_MS;
  const modificationSentAt = record.kind === 'volume' ? record.modificationSentAt : undefined;
  // Every record read is judged: nothing is built unless a time is ahead.
  if (!isAfter(record.status.updatedAt, limitMs) && !isAfter(record.status.operationStartedAt, limitMs) && !isAfter(modificationSentAt, limitMs)) return undefined;
  const times: [string, string | undefined][] = [
    ['status.updatedAt', record.status.updatedAt],
    ['status.operationStartedAt', record.status.operationStartedAt],
    ['modificationSentAt', modificationSentAt],
  ];
  return times
    .filter(([, time]) => isAfter(time, limitMs))
    .map(([name, time]) => `${name}: ${time} is ahead of the clock (the system writes its times as it writes them): put it right or remove it`)
    .join(REASON_SEPARATOR);
}

function isAfter(time: string | undefined, limitMs: number): boolean {
  return time !== undefined && Date.parse(time) > limitMs;
}

/** Why a valid record's claim or times cannot be ones the system wrote (see claimBeyondLease, timesAhead), or undefined. */
function notWrittenBySystem(record: ProvisionerRecord, nowMs: number, leaseMs: number): string | undefined {
  const claim = claimBeyondLease(record, nowMs, leaseMs);
  const times = timesAhead(record, nowMs);
  return claim === undefined ? times : times === undefined ? claim : `${claim}${REASON_SEPARATOR}${times}`;
}

/**
 * How the watcher, the executor and the reconciler judge a record read from the table: `record`
 * when its form is valid, `rejection` the reasons it is refused for when it is not, or when its
 * claim or times are not ones the system wrote (`notWrittenBySystem`; `record` is then kept, as
 * its attachments read it as it is). Acted on only with a record and no rejection.
 */
export function judgeRecord(raw: unknown, nowMs: number, leaseMs: number): { record?: ProvisionerRecord; rejection?: string } {
  const parsed = parseRecord(raw);
  if (!parsed.ok) return { rejection: describeValidationIssues(parsed.issues) };
  const rejection = notWrittenBySystem(parsed.value, nowMs, leaseMs);
  return rejection === undefined ? { record: parsed.value } : { record: parsed.value, rejection };
}

/** Whether the record as the table holds it (`current`) already carries the rejection for `reasons`. */
export function rejectionStands(current: unknown, reasons: string): boolean {
  const status = field(current, 'status');
  // The message as written: the status message bound shortens long reasons.
  const message = invalidRecordStatus(0, reasons).message;
  return field(status, 'state') === 'error' && field(status, 'code') === INVALID_RECORD_CODE && field(status, 'message') === message;
}

/**
 * Writes the rejection of `current` for `reasons` over the version judged, counted once it is
 * written: a record its client changed meanwhile is judged again by that change. One already
 * rejected for these reasons (its own status write coming back, a redelivery) is left as it is. A
 * record too large to hold it fails with ItemTooLargeError.
 */
export async function writeRejection(deps: RejectionDeps, current: ProvisionerRecord, key: RecordKey, reasons: string): Promise<void> {
  if (rejectionStands(current, reasons)) return;
  const status = invalidRecordStatus(deps.clock.now(), reasons);
  deps.log.warn('invalid record', { key: keyString(key), reasons: status.message });
  // Written without a version it reads as 0; one that is no number, or a number too large to be
  // read exactly (a condition on it cannot even be sent), cannot be matched: rejected whatever it holds.
  const version = field(current, 'version');
  const createdAt = field(current, 'createdAt');
  const judged =
    version === undefined ? { version: 0 } : Number.isSafeInteger(version) ? unchangedSince({ version: version as number, ...(typeof createdAt === 'string' ? { createdAt } : {}) }) : undefined;
  try {
    await deps.store.update(key, { status } as RecordChanges, judged);
  } catch (error) {
    if (!(error instanceof ConditionFailedError)) throw error;
    return;
  }
  deps.metrics.count(METRICS.invalidRecords);
}
