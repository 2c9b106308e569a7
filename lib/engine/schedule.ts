/**
 * The retry schedule as pure functions: when to look again at asynchronous work, how long to back
 * off after a failure or throttling, when to give up, and how a wait maps onto delayed queue
 * messages (at most `maxMessageDelaySeconds` each, longer waits chained through `dueAt`).
 * Randomness is injected so jitter is testable.
 */
import type { EngineConfig } from './config.js';
import type { OperationKind } from './ports.js';

/**
 * Seconds until the next progress check of `op`, given how long the operation has run. The first
 * check comes near the expected transition time; later ones grow with the time already spent:
 * `growth` times it, rounded up to a whole second (never sooner than that fraction: 30.1 s is 31),
 * from `firstSeconds` to `maxSeconds`.
 */
export function progressDelaySeconds(op: OperationKind, elapsedMs: number, config: EngineConfig): number {
  const check = config.progressChecks[op];
  const grown = Math.ceil((Math.max(0, elapsedMs) / 1000) * check.growth);
  return Math.min(check.maxSeconds, Math.max(check.firstSeconds, grown));
}

/**
 * When a progress check of `op` due at `dueAtMs` should run: the next point of the check's shared
 * grid (`alignSeconds`, multiples of wall-clock time), so checks of operations started within
 * the same few seconds fall due together and share one executor batch and one describe call.
 */
export function alignedCheckAtMs(op: OperationKind, dueAtMs: number, config: EngineConfig): number {
  const gridMs = (config.progressChecks[op].alignSeconds ?? 1) * 1000;
  return gridMs > 1000 ? Math.ceil(dueAtMs / gridMs) * gridMs : dueAtMs;
}

/**
 * Seconds to wait after failed attempt number `attempt` (1-based): exponential from
 * `backoff.baseSeconds`, capped at `backoff.capSeconds`, with equal jitter (half fixed, half
 * random) so retries of many records spread out but never collapse to zero. Whole seconds: under
 * a cap that is not one, the longest wait is the whole second below it.
 */
export function backoffDelaySeconds(attempt: number, config: EngineConfig, random: () => number): number {
  const exponent = Math.max(0, attempt - 1);
  const ceiling = Math.min(config.backoff.capSeconds, config.backoff.baseSeconds * 2 ** Math.min(exponent, 30));
  const half = ceiling / 2;
  return Math.max(1, Math.min(Math.floor(config.backoff.capSeconds), Math.round(half + random() * half)));
}

/**
 * Seconds until the next CreateVolume of a volume whose snapshot EC2 has not completed, given how
 * long it has waited (`snapshotWait`): it grows with the wait, as a progress check does (rounded
 * up to a whole second).
 */
export function snapshotWaitSeconds(elapsedMs: number, config: EngineConfig): number {
  const wait = config.snapshotWait;
  return Math.min(wait.maxSeconds, Math.max(wait.firstSeconds, Math.ceil((Math.max(0, elapsedMs) / 1000) * wait.growth)));
}

/** Seconds to wait after RequestLimitExceeded: uniform in the configured range; no attempt is used. */
export function throttleDelaySeconds(config: EngineConfig, random: () => number): number {
  const { minSeconds, maxSeconds } = config.throttleBackoff;
  return Math.round(minSeconds + random() * (maxSeconds - minSeconds));
}

export type GiveUpReason = { reason: 'attempts'; message: string } | { reason: 'age'; message: string };

/**
 * Whether an operation has spent its budget: `attempts` failed attempts so far, started at
 * `operationStartedAtMs`. Returns why, or undefined to keep trying. A dying record's step
 * (`triedAgain`) is not given up on but tried again after the longest backoff: its message says
 * how far it got, not that it gave up. The operation's age in the message is in whole minutes,
 * rounded to the nearest (at 6 hours 29 s, 360 minutes; at 6 hours 30 s, 361).
 */
export function budgetSpent(
  attempts: number,
  operationStartedAtMs: number | undefined,
  nowMs: number,
  config: EngineConfig,
  triedAgain = false,
): GiveUpReason | undefined {
  if (attempts >= config.maxAttempts)
    return { reason: 'attempts', message: triedAgain ? `failed ${attempts} times so far` : `gave up after ${attempts} failed attempts` };
  if (operationStartedAtMs !== undefined && nowMs - operationStartedAtMs >= config.maxOperationAgeMs) {
    const minutes = Math.round((nowMs - operationStartedAtMs) / 60_000);
    return { reason: 'age', message: triedAgain ? `not done after ${minutes} minutes` : `gave up after ${minutes} minutes` };
  }
  return undefined;
}

/**
 * A dying record's give-up message (`budgetSpent` tried again: how far it got) as a live record's
 * (that it gave up), for a record set back to alive, whose step no attempt follows any more. The
 * reason closes the message, in brackets (a failed step) or after a colon (a look at work not done
 * in time); any other message is returned as it is.
 */
export function givenUpOnceAlive(message: string): string {
  return message.replace(/failed (\d+) times so far(\)?)$/, 'gave up after $1 failed attempts$2').replace(/not done after (\d+) minutes(\)?)$/, 'gave up after $1 minutes$2');
}

/**
 * How to wait until `dueAtMs` with queue messages: the delay of the next message and, when the
 * wait is longer than one message can carry, the `dueAt` that message must carry onward.
 */
export function queueDelay(nowMs: number, dueAtMs: number, config: EngineConfig): { delaySeconds: number; dueAt?: number } {
  const remainingSeconds = Math.max(0, Math.ceil((dueAtMs - nowMs) / 1000));
  if (remainingSeconds <= config.maxMessageDelaySeconds) return { delaySeconds: remainingSeconds };
  return { delaySeconds: config.maxMessageDelaySeconds, dueAt: dueAtMs };
}

/**
 * How to send a progress check due at `dueAtMs` so that the batch holding it forms then: SQS
 * delays are whole seconds from the send, and the event source then gathers a batch for up to its
 * batching window, so the message is sent to arrive that window early, rounded down (never
 * after its time). Longer waits are chained as `queueDelay` does.
 *
 * @example
 * // Sent at 10.4 s for a check due at 14 s, with a 1 s window: visible at 12.4 s, batched by 13.4 s.
 * checkQueueDelay(10_400, 14_000, config); // { delaySeconds: 2 }
 */
export function checkQueueDelay(nowMs: number, dueAtMs: number, config: EngineConfig): { delaySeconds: number; dueAt?: number } {
  const whole = Math.floor((dueAtMs - nowMs) / 1000);
  if (whole > config.maxMessageDelaySeconds) return queueDelay(nowMs, dueAtMs, config);
  return { delaySeconds: Math.max(0, whole - config.queueBatchingWindowSeconds) };
}
