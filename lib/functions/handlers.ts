/**
 * The core of the watcher, executor and reconciler functions: event in, engine call, batch
 * response out. The Lambda entry points in functions/ wrap these with logging and metrics
 * middleware; the local runtime calls the very same functions with its own backends.
 */
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { fromStreamImage, itemFromAttributeValues, keyFromStreamKeys } from '../aws/record-item.js';
import { parseOperationMessage } from '../aws/sqs-queue.js';
import { Executor, type ExecutorBatchItem, type ExecutorDeps } from '../engine/executor.js';
import { Reconciler, type ReconcileReport, type ReconcilerDeps } from '../engine/reconciler.js';
import { Watcher, type RecordChange } from '../engine/watcher.js';
import { METRICS } from '../settings.js';

/** What the handler cores are built from: the engine's ports and its configuration. */
export type PipelineDeps = ExecutorDeps;

export type StreamHandler = (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse>;
/** Lambda's context, as far as the executor and the reconciler need it: how long the invocation has left. */
export interface InvocationContext {
  getRemainingTimeInMillis(): number;
}

export type QueueHandler = (event: SQSEvent, context?: InvocationContext) => Promise<SQSBatchResponse>;

/** A stream record as the watcher reads it; undefined when its keys name no record of ours. */
export function toRecordChange(record: DynamoDBRecord): RecordChange | undefined {
  const keys = record.dynamodb?.Keys;
  const key = keys ? keyFromStreamKeys(keys) : undefined;
  const id = record.dynamodb?.SequenceNumber;
  if (!key || !id || !record.eventName) return undefined;
  const change: RecordChange = { id, eventName: record.eventName, key };
  if (record.dynamodb?.OldImage) change.oldRecord = fromStreamImage(record.dynamodb.OldImage);
  if (record.dynamodb?.NewImage) change.newRecord = fromStreamImage(record.dynamodb.NewImage);
  return change;
}

/**
 * Stream batch → watcher. Failures are reported by sequence number, so the event source mapping
 * retries from the first failed record onward and never skips one.
 */
export function createWatcherHandler(deps: Omit<PipelineDeps, 'provider'>): StreamHandler {
  const watcher = new Watcher(deps);
  return async (event) => {
    const changes: RecordChange[] = [];
    for (const record of event.Records) {
      const change = toRecordChange(record);
      if (change) changes.push(change);
      else if (record.eventName === 'REMOVE') {
        // Such an item gone from the table (its removal is what the InvalidRecords runbook asks for) is nothing invalid.
        deps.log.debug('stream record names no volume or attachment; its removal skipped', { eventID: record.eventID });
      } else {
        // Its key is all that finds such an item in the table: no API lists it, and it has no status.
        const keys = record.dynamodb?.Keys;
        deps.log.warn('stream record names no volume or attachment; skipped', { eventID: record.eventID, ...(keys ? { keys: itemFromAttributeValues(keys) } : {}) });
        deps.metrics.count(METRICS.invalidRecords);
      }
    }
    const { failedChangeIds } = await watcher.handle(changes);
    return { batchItemFailures: failedChangeIds.map((itemIdentifier) => ({ itemIdentifier })) };
  };
}

/**
 * Queue batch → executor, as one batch so EC2 calls are grouped across its messages. (Powertools'
 * BatchProcessor hands records to a handler one at a time, which would defeat that grouping; the
 * partial batch response is built from the executor's own failures instead.) A body that is not an
 * operation message is logged and dropped: redelivering it could never succeed.
 */
export function createExecutorHandler(deps: PipelineDeps): QueueHandler {
  const executor = new Executor(deps);
  return async (event, context) => {
    const batch: ExecutorBatchItem[] = [];
    for (const record of event.Records) {
      const parsed = parseOperationMessage(record.body);
      // Deliveries so far: on the last one SQS allows, a record the executor fails on is told so in its status.
      const receiveCount = Number(record.attributes?.ApproximateReceiveCount);
      if (parsed.ok) batch.push({ messageId: record.messageId, message: parsed.message, ...(Number.isInteger(receiveCount) && receiveCount > 0 ? { receiveCount } : {}) });
      else deps.log.error('dropping a message that is not an operation', { messageId: record.messageId, error: parsed.error });
    }
    // Waits for EC2 rate tokens stay within the invocation's time.
    const { failedMessageIds } = await executor.run(batch, context ? { remainingTimeMs: context.getRemainingTimeInMillis() } : {});
    return { batchItemFailures: failedMessageIds.map((itemIdentifier) => ({ itemIdentifier })) };
  };
}

/** What a reconciler pass did, as its `reconciled` log line says it: counts, not the records (a pass may re-enqueue tens of thousands). */
export interface ReconcileSummary {
  scanned: number;
  invalid: number;
  requeued: number;
  leaked: number;
  complete: boolean;
  segmentsDone: number;
  segmentsTotal: number;
  leakCheckComplete: boolean;
}

/** When a scheduled event says its schedule fired (`time`, ISO 8601), in ms; undefined for anything else. */
function scheduledTime(event: unknown): number | undefined {
  const time = event !== null && typeof event === 'object' ? (event as { time?: unknown }).time : undefined;
  const ms = typeof time === 'string' ? Date.parse(time) : Number.NaN;
  return Number.isFinite(ms) ? ms : undefined;
}

/**
 * Scheduled event → one reconciler pass, logged as `reconciled` with its summary. The local
 * runtime reads the whole report; the Lambda function returns the summary only.
 */
export function createReconcilerPass(deps: ReconcilerDeps): (event?: unknown, context?: InvocationContext) => Promise<{ report: ReconcileReport; summary: ReconcileSummary }> {
  const reconciler = new Reconciler(deps);
  return async (event, context) => {
    const scheduledAt = scheduledTime(event);
    // The pass stops in time to report what it did and left, rather than being stopped by a timeout.
    const report = await reconciler.run({
      ...(context ? { remainingTimeMs: context.getRemainingTimeInMillis() } : {}),
      ...(scheduledAt !== undefined ? { scheduledAt } : {}),
    });
    const { segments, leakCheckComplete } = report;
    const summary: ReconcileSummary = {
      scanned: report.scanned,
      invalid: report.invalid,
      requeued: report.requeued.length,
      leaked: report.leaked.length,
      complete: segments.done === segments.total && leakCheckComplete,
      segmentsDone: segments.done,
      segmentsTotal: segments.total,
      leakCheckComplete,
    };
    deps.log.info('reconciled', { ...summary });
    return { report, summary };
  };
}

/** Scheduled event → reconciler: the pass's summary is the function's result. */
export function createReconcilerHandler(deps: ReconcilerDeps): (event?: unknown, context?: InvocationContext) => Promise<ReconcileSummary> {
  const pass = createReconcilerPass(deps);
  return async (event, context) => (await pass(event, context)).summary;
}
