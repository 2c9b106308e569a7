/**
 * Building the status a person reads. Success clears the error code, attempts and next attempt
 * time; a failure carries the EC2 error code and message, the attempt count and when the next
 * attempt is due.
 */
import type { Status } from '../domain/records.js';

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
  if (message !== undefined) status.message = message;
  if (!RESTING.has(state) && state !== 'pending')
    status.operationStartedAt = accepted ? new Date(nowMs).toISOString() : operationStart(previous, nowMs);
  return status;
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
    message: failure.message,
    attempts: failure.attempts,
    updatedAt: new Date(nowMs).toISOString(),
    operationStartedAt: operationStart(previous, nowMs),
  };
  if (failure.nextAttemptAtMs !== undefined) status.nextAttemptAt = new Date(failure.nextAttemptAtMs).toISOString();
  return status;
}

/** When the current operation started: kept across retries and progress checks, else now. */
export function operationStart(previous: Status<string>, nowMs: number): string {
  if (previous.operationStartedAt && (previous.attempts > 0 || !RESTING.has(previous.state))) return previous.operationStartedAt;
  return new Date(nowMs).toISOString();
}

export function operationStartMs(status: Status<string>): number | undefined {
  return status.operationStartedAt ? Date.parse(status.operationStartedAt) : undefined;
}
