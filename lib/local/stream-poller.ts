/**
 * Feeds a stream handler the way Lambda's DynamoDB event source mapping does: records in order,
 * batches of up to `batchSize` gathered for at most the batching window, partial failures retried
 * from the first failed record onward (the whole batch when one names a record not in it), a
 * batch whose invocation throws split in two and each half retried on its own (splitting does not
 * count as a retry), and a record given up (sent to the on-failure destination) after
 * `retryAttempts` retries or once older than `maxRecordAgeSeconds`, counted from when it entered
 * the stream.
 */
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import type { Clock, Log } from '../engine/ports.js';
import { WATCHER } from '../settings.js';
import { PollerRuns, pollUntilStopped } from './poll-loop.js';

export interface StreamSource {
  /** The next records, in order, each returned once. */
  read(): Promise<DynamoDBRecord[]>;
}

export interface StreamPollerSettings {
  batchSize: number;
  maxBatchingWindowSeconds: number;
  bisectBatchOnError: boolean;
  retryAttempts: number;
  maxRecordAgeSeconds: number;
}

export interface StreamPollerOptions {
  source: StreamSource;
  handler: (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse | void>;
  clock: Clock;
  log: Log;
  settings?: StreamPollerSettings;
  /** Idle wait between reads of an empty source. */
  idleMs?: number;
  /** Called with each record given up on (the on-failure destination). */
  onDiscard?: (record: DynamoDBRecord, reason: string) => void;
}

interface Pending {
  record: DynamoDBRecord;
  /** When the record entered the stream (epoch ms); its age counts from here. */
  createdAt: number;
  /** When this poller read it; the batching window counts from here. */
  arrivedAt: number;
  attempts: number;
}

/**
 * When a record entered the stream: `ApproximateCreationDateTime` is epoch seconds in a Lambda
 * event and a Date from the DynamoDB Streams SDK; either is accepted, `fallback` when absent.
 */
export function streamRecordCreatedAt(record: DynamoDBRecord, fallback: number): number {
  const value: unknown = record.dynamodb?.ApproximateCreationDateTime;
  if (value instanceof Date) return value.getTime();
  if (typeof value === 'number' && Number.isFinite(value)) return value * 1000;
  return fallback;
}

export class StreamPoller {
  private readonly settings: StreamPollerSettings;
  private readonly buffer: Pending[] = [];
  /**
   * Sizes of the batches still owed to earlier bisections, front first: a failed batch of n is
   * replaced by its halves, and full-size batches resume once they are all delivered.
   */
  private readonly segments: number[] = [];
  private readonly runs = new PollerRuns();

  constructor(private readonly options: StreamPollerOptions) {
    this.settings = options.settings ?? WATCHER;
  }

  /** Starts the one loop; a start while a stop is under way begins once that stop is over. */
  start(): void {
    const { clock, log } = this.options;
    this.runs.start((running) => [pollUntilStopped({ running, pollOnce: () => this.pollOnce(), clock, log, idleMs: this.options.idleMs ?? 200, name: 'stream poller' })]);
  }

  /** Stops the loop; resolves once the batch under way has been handled. */
  async stop(): Promise<void> {
    await this.runs.stop();
  }

  /** Reads what is there and invokes the handler once if a batch is ready; returns records handled. */
  async pollOnce(): Promise<number> {
    const now = this.options.clock.now();
    for (const record of await this.options.source.read()) {
      this.buffer.push({ record, createdAt: streamRecordCreatedAt(record, now), arrivedAt: now, attempts: 0 });
    }
    this.dropExpired();
    const first = this.buffer[0];
    if (!first) return 0;
    const limit = this.segments[0] ?? this.settings.batchSize;
    const windowOver = now - first.arrivedAt >= this.settings.maxBatchingWindowSeconds * 1000;
    if (this.buffer.length < limit && !windowOver) return 0;
    return this.invoke(this.buffer.slice(0, limit));
  }

  private async invoke(batch: Pending[]): Promise<number> {
    const log = this.options.log;
    log.debug('watcher batch received', { records: batch.length, first: batch[0]?.record.dynamodb?.SequenceNumber });
    const started = this.options.clock.now();
    let failedFrom: number | undefined;
    try {
      const response = await this.options.handler({ Records: batch.map((p) => p.record) });
      const indexes = (response?.batchItemFailures ?? []).map((f) => batch.findIndex((p) => p.record.dynamodb?.SequenceNumber === f.itemIdentifier));
      failedFrom = indexes.length > 0 ? Math.min(...indexes) : undefined;
      // Lambda takes an identifier that names no record of the batch for a failure of the whole batch.
      if (failedFrom === -1) {
        log.warn('watcher response names a record not in its batch; the batch will be retried', { records: batch.length });
        failedFrom = 0;
      }
    } catch (error) {
      this.options.log.warn('watcher invocation failed', { error: String(error), records: batch.length });
      if (this.settings.bisectBatchOnError && batch.length > 1) {
        this.bisect(batch.length);
        return 0;
      }
      failedFrom = 0;
    }
    const done = failedFrom ?? batch.length;
    log.debug('watcher batch handled', { records: done, retried: batch.length - done, ms: this.options.clock.now() - started });
    this.buffer.splice(0, done);
    this.consumeSegment(done);
    if (failedFrom !== undefined) {
      const head = this.buffer[0]!;
      head.attempts++;
      if (head.attempts > this.settings.retryAttempts) this.discard(`retried ${this.settings.retryAttempts} times`);
    }
    return done;
  }

  /** Replaces the batch that just failed with its two halves, to be delivered one after the other. */
  private bisect(size: number): void {
    const half = Math.ceil(size / 2);
    if (this.segments.length > 0) this.segments.shift();
    this.segments.unshift(half, size - half);
  }

  /** `count` records at the front were delivered (or given up): shrink the owed batches to match. */
  private consumeSegment(count: number): void {
    let left = count;
    while (left > 0 && this.segments.length > 0) {
      const taken = Math.min(left, this.segments[0]!);
      left -= taken;
      if (taken === this.segments[0]) this.segments.shift();
      else this.segments[0]! -= taken;
    }
  }

  private dropExpired(): void {
    const maxAgeMs = this.settings.maxRecordAgeSeconds * 1000;
    while (this.buffer[0] && this.options.clock.now() - this.buffer[0].createdAt > maxAgeMs) this.discard('older than the maximum record age');
  }

  /** Gives up on the record at the front; there is one whenever this is called. */
  private discard(reason: string): void {
    const gone = this.buffer.shift()!;
    this.consumeSegment(1);
    this.options.log.error('stream record given up', { sequenceNumber: gone.record.dynamodb?.SequenceNumber, reason });
    this.options.onDiscard?.(gone.record, reason);
  }
}
