/**
 * Pipeline settings shared by the CDK stack, the local runtime and the simulator, so that what is
 * deployed, what runs locally and what is benchmarked are the same system.
 */

export const TABLE = {
  partitionKey: 'pk',
  sortKey: 'sk',
  /** GSI listing an instance's attachments: partition `gsi1pk` = `INSTANCE#<id>`, sort `gsi1sk` = `VOLUME#<id>`. */
  instanceIndex: { name: 'byInstance', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
  streamView: 'NEW_AND_OLD_IMAGES',
  /** DynamoDB refuses a write that would make an item larger than this (400 KB, names and values counted). */
  maxItemBytes: 400 * 1024,
} as const;

/**
 * The shared EC2 rate budget: one item per EC2 request bucket (the executor's token levels), in a
 * table of its own so that taking tokens writes nothing to the record table's stream.
 */
export const RATE_BUDGET_TABLE = {
  partitionKey: 'bucket',
} as const;

/** Stream → watcher event source mapping. */
export const WATCHER = {
  batchSize: 100,
  /**
   * No waiting to fill a batch: every request waits for the watcher, and most changes the system
   * makes itself are settled from their stream image without a read, so small batches are cheap
   * (measured: steady p50 −0.7 s, cost within 3 %; BENCHMARKS.md).
   */
  maxBatchingWindowSeconds: 0,
  bisectBatchOnError: true,
  retryAttempts: 10,
  maxRecordAgeSeconds: 3600,
  parallelizationFactor: 1,
  timeoutSeconds: 60,
  memoryMiB: 512,
} as const;

/** Queue → executor event source mapping. */
export const EXECUTOR = {
  batchSize: 100,
  maxBatchingWindowSeconds: 1,
  /** Concurrent executor invocations; together with the rate budget this protects EC2's API limits. */
  maxConcurrency: 5,
  timeoutSeconds: 120,
  memoryMiB: 1024,
} as const;

export const QUEUE = {
  /** AWS recommends at least six times the function timeout for SQS event sources. */
  visibilityTimeoutSeconds: EXECUTOR.timeoutSeconds * 6,
  /** Receives before a message goes to the dead-letter queue. */
  maxReceiveCount: 5,
  /** Operation messages are hints that the reconciler re-creates when lost; a week outlasts an executor outage. */
  retentionDays: 7,
  /**
   * The dead-letter and stream failure queues, whose messages wait for a person: SQS's maximum.
   * A dead-lettered message keeps its original enqueue time, so the dead-letter queue must keep
   * messages longer than the operation queue, or it would drop them early.
   */
  deadLetterRetentionDays: 14,
  /** SQS's maximum per-message delay; longer waits are chained. */
  maxDelaySeconds: 900,
} as const;

export const RECONCILER = {
  intervalMinutes: 5,
  /**
   * Below the interval: with one reserved execution, a pass still running when the next is due
   * would throttle it. A pass stops starting work in time to report within it, and the next passes
   * take up the table segments it left (engine config `reconcilerScanSegments`).
   */
  timeoutSeconds: 240,
  memoryMiB: 512,
} as const;

export const API = {
  timeoutSeconds: 10,
  /**
   * Upper bound of one HTTP attempt of the API's AWS calls. The default (5 s) times the SDK's three
   * attempts outlasts `timeoutSeconds`, so one hung call would end the invocation with a Lambda
   * timeout instead of an error response.
   */
  awsRequestTimeoutMs: 2_000,
  memoryMiB: 512,
  /**
   * Largest request body accepted, in bytes: room for the largest valid request in any JSON
   * encoding. Its tags dominate: 48 keys of 127 and values of 256 characters, each character
   * escaped as a surrogate pair (`\uD840\uDC00`, 12 bytes), take less than 48 × (384 × 12 + 6) =
   * 221,472 bytes; the other fields, escaped too (6 bytes a character), fit in the 40 KiB left.
   */
  maxBodyBytes: 256 * 1024,
  throttleRatePerSecond: 50,
  throttleBurst: 100,
} as const;

/** Tag keys put on every EC2 volume this system creates. */
export const OWNERSHIP_TAGS = {
  /** Value: the owning stack / deployment name. IAM conditions scope EC2 mutations to it. */
  owner: 'ebs-provisioner:owner',
  /** Value: the record's volume id, so the table can be rebuilt from EC2. */
  record: 'ebs-provisioner:volume-id',
} as const;

/**
 * CloudWatch metrics (EMF) the functions emit and the alarms and dashboard read, each deployment
 * in a namespace of its own (`metricsNamespace`), so that its alarms hear only its own functions.
 */
export const METRICS = {
  /** First part of every deployment's namespace: `EbsProvisioner/<deployment>`. */
  namespacePrefix: 'EbsProvisioner',
  /** Count per operation outcome; dimensions `operation` and `outcome`. */
  operations: 'Operations',
  /** EC2 call latency per operation, milliseconds; dimension `operation`. */
  latency: 'OperationLatency',
  /** Operations that ended in a terminal error, counted once their error status is written; no dimensions, so one alarm covers all. */
  failed: 'OperationsFailed',
  /**
   * Volumes carrying this deployment's ownership tag that no record owns; reported by a reconciler
   * pass that judged every owned volume (zero too), or that found leaks.
   */
  leaked: 'LeakedVolumes',
  /** One per reconciler pass, complete or cut short by its time: the heartbeat an alarm counts. */
  reconcilerPasses: 'ReconcilerPasses',
  /** Records the watcher rejected as invalid. */
  invalidRecords: 'InvalidRecords',
  /**
   * EC2 volumes a dying attachment found attached to its instance by their tags, its volume record
   * having been removed from the table: each is detached.
   */
  orphanVolumesFound: 'OrphanVolumesFound',
} as const;

/**
 * The CloudWatch namespace of one deployment's metrics, named after the deployment (the stack's
 * name: unique in its account and Region, and only letters, digits and hyphens, which namespaces
 * and SEARCH expressions take as they are).
 */
export function metricsNamespace(deployment: string): string {
  return `${METRICS.namespacePrefix}/${deployment}`;
}
