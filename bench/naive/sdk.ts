/**
 * What the AWS SDK for JavaScript v3 does around each call of a hand-written client, reproduced
 * on the simulator's clock and random numbers so the naive design behaves as it would for a user:
 *
 * - the default "standard" retry strategy (@smithy/core retry/util-retry, as installed):
 *   at most 3 attempts; throttling and transient errors are retried after
 *   floor(random × min(base × 2^retries, 20 000 ms)) with base 1 000 ms for throttling and 50 ms
 *   otherwise; a retry quota of 500 tokens, 5 per throttling retry and 14 per other retry,
 *   refunded on success;
 * - the EC2 volume waiters (waitUntilVolumeAvailable / waitUntilVolumeInUse, minDelay 15 s,
 *   maxDelay 120 s), polled by @smithy's runPolling: the first DescribeVolumes at once, then
 *   after `exponentialBackoffWithJitter` (uniform between minDelay and min(minDelay × 2^(n−1),
 *   maxDelay), maxDelay once past the ceiling), giving up at maxWaitTime. A DescribeVolumes that
 *   fails (even after retries) makes the waiter poll again, as the generated acceptors do.
 */
import { ProviderError, type Clock, type ProviderVolume, type ProviderVolumeState, type VolumeProvider } from '../../lib/engine/ports.js';
import type { Random } from '../sim/random.js';

export const SDK_RETRY = {
  maxAttempts: 3,
  baseDelayMs: 50,
  throttlingBaseDelayMs: 1000,
  maxDelayMs: 20_000,
  initialQuota: 500,
  retryCost: 14,
  throttlingRetryCost: 5,
  noRetryIncrement: 1,
} as const;

export const VOLUME_WAITER = { minDelaySeconds: 15, maxDelaySeconds: 120 } as const;

/** The SDK's wait before retry number `retry` (0 for the first): full jitter on an exponential, capped at `maxDelayMs`. */
export function retryDelayMs(retry: number, baseDelayMs: number, random: Random): number {
  return Math.floor(random.next() * Math.min(baseDelayMs * 2 ** retry, SDK_RETRY.maxDelayMs));
}

/** One SDK client's retry state (the retry quota lives in the client). */
export class StandardRetry {
  private quota: number = SDK_RETRY.initialQuota;
  /** Retries made, and throttling errors seen. */
  retries = 0;
  throttlingErrors = 0;

  constructor(
    private readonly clock: Clock,
    private readonly random: Random,
  ) {}

  async call<T>(operation: () => Promise<T>): Promise<T> {
    let retryCost: number | undefined;
    for (let attempt = 0; ; attempt++) {
      try {
        const result = await operation();
        this.quota = Math.min(SDK_RETRY.initialQuota, this.quota + (retryCost ?? SDK_RETRY.noRetryIncrement));
        return result;
      } catch (error) {
        const kind = error instanceof ProviderError ? error.kind : undefined;
        const throttling = kind === 'throttled';
        if (throttling) this.throttlingErrors++;
        const retryable = throttling || kind === 'transient';
        const cost = throttling ? SDK_RETRY.throttlingRetryCost : SDK_RETRY.retryCost;
        if (!retryable || attempt + 1 >= SDK_RETRY.maxAttempts || this.quota < cost) throw error;
        this.quota -= cost;
        retryCost = cost;
        this.retries++;
        await this.clock.sleep(retryDelayMs(attempt, throttling ? SDK_RETRY.throttlingBaseDelayMs : SDK_RETRY.baseDelayMs, this.random));
      }
    }
  }
}

/** A waiter that reached its maxWaitTime (the SDK's `TimeoutError`). */
export class WaiterTimeoutError extends Error {
  override readonly name = 'TimeoutError';
}

/** A waiter that met its failure acceptor (the volume was deleted). */
export class WaiterFailureError extends Error {
  override readonly name = 'WaiterFailure';
}

/** @smithy/core util-waiter's exponentialBackoffWithJitter, on the injected clock and random. */
export function waiterDelayMs(attempt: number, nowMs: number, waitUntilMs: number, random: Random): number {
  const minDelayMs = VOLUME_WAITER.minDelaySeconds * 1000;
  const maxDelayMs = VOLUME_WAITER.maxDelaySeconds * 1000;
  const attemptCeiling = Math.log(maxDelayMs / minDelayMs) / Math.log(2) + 1;
  if (attempt > attemptCeiling) return maxDelayMs;
  const capped = Math.min(minDelayMs * 2 ** (attempt - 1), maxDelayMs);
  const waitFor = minDelayMs + random.next() * (capped - minDelayMs);
  if (nowMs + waitFor > waitUntilMs) return Math.max(0, waitUntilMs - nowMs - 500);
  return waitFor;
}

/**
 * waitUntilVolumeAvailable / waitUntilVolumeInUse: polls DescribeVolumes for one volume until its
 * state is `wanted`; `deleted` is a failure; anything else (including an error) polls again.
 */
export async function waitUntilVolumeState(
  ec2: VolumeProvider,
  retry: StandardRetry,
  clock: Clock,
  random: Random,
  ebsVolumeId: string,
  wanted: Extract<ProviderVolumeState, 'available' | 'in-use'>,
  maxWaitTimeSeconds: number,
): Promise<ProviderVolume> {
  const waitUntil = clock.now() + maxWaitTimeSeconds * 1000;
  for (let attempt = 0; ; attempt++) {
    if (attempt > 0) {
      const delay = waiterDelayMs(attempt, clock.now(), waitUntil, random);
      if (clock.now() + delay > waitUntil) throw new WaiterTimeoutError(`waiting for ${ebsVolumeId} to be ${wanted}`);
      await clock.sleep(delay);
    }
    let volumes: ProviderVolume[] | undefined;
    try {
      volumes = await retry.call(() => ec2.describeVolumes([ebsVolumeId]));
    } catch {
      volumes = undefined;
    }
    if (volumes && volumes.length > 0) {
      if (volumes.every((volume) => volume.state === wanted)) return volumes[0]!;
      if (volumes.some((volume) => volume.state === 'deleted')) throw new WaiterFailureError(`${ebsVolumeId} was deleted`);
    }
  }
}
