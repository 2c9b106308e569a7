/**
 * What the executor's parts share: the dependencies an Executor is built with, and the state it
 * keeps across invocations (rate buckets, described instances). The functions of the executor's
 * modules take it as their first argument, so none of them reaches back into the Executor class.
 */
import type { EngineConfig, RateBucket } from '../config.js';
import type { Clock, Log, Metrics, OperationQueue, ProviderInstance, RecordStore, SharedRateBudget, VolumeProvider } from '../ports.js';
import type { TokenBucket } from '../rate-limiter.js';

export interface ExecutorDeps {
  store: RecordStore;
  queue: OperationQueue;
  provider: VolumeProvider;
  clock: Clock;
  metrics: Metrics;
  log: Log;
  config?: Partial<EngineConfig>;
  /** EC2's request buckets shared with the other environments; without it each spends its own share (`rateBudgets`). */
  rateBudget?: SharedRateBudget;
  /** Jitter source, [0, 1). */
  random?: () => number;
  /** Claim owner id of one invocation. */
  newOwnerId?: () => string;
}

/** The state the executor's parts share; one per Executor, kept across its invocations. */
export interface ExecutorContext {
  readonly deps: ExecutorDeps;
  readonly config: EngineConfig;
  /** Jitter source, [0, 1) (`ExecutorDeps.random`, else Math.random). */
  readonly random: () => number;
  /** One bucket per EC2 request bucket, each action spending its bucket's (`RATE_BUCKET_OF`); kept across invocations of this environment. */
  readonly buckets: Record<RateBucket, TokenBucket>;
  /** Instances described recently by this environment: an instance's AZ never changes, its state rarely. */
  readonly instanceCache: Map<string, { instance: ProviderInstance; describedAt: number }>;
}
