/**
 * Feeds a stream handler the way Lambda's DynamoDB event source mapping does: records in order,
 * batches of up to `batchSize` gathered for at most the batching window, partial failures retried
 * from the first failed record onward, a failing batch bisected, and a record given up (sent to
 * the on-failure destination) after `retryAttempts` retries or once older than `maxRecordAgeSeconds`.
 */
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import type { Clock, Log } from '../engine/ports.js';
import { WATCHER } from '../settings.js';

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
  arrivedAt: number;
  attempts: number;
}

export class StreamPoller {
  private readonly settings: StreamPollerSettings;
  private readonly buffer: Pending[] = [];
  private limit: number;
  private running = false;
  private loop?: Promise<void>;

  constructor(private readonly options: StreamPollerOptions) {
    this.settings = options.settings ?? WATCHER;
    this.limit = this.settings.batchSize;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = (async () => {
      while (this.running) {
        const handled = await this.pollOnce().catch((error: unknown) => {
          this.options.log.error('stream poller failed', { error: String(error) });
          return 0;
        });
        if (handled === 0 && this.running) await this.options.clock.sleep(this.options.idleMs ?? 200);
      }
    })();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  /** Reads what is there and invokes the handler once if a batch is ready; returns records handled. */
  async pollOnce(): Promise<number> {
    const now = this.options.clock.now();
    for (const record of await this.options.source.read()) this.buffer.push({ record, arrivedAt: now, attempts: 0 });
    this.dropExpired();
    const first = this.buffer[0];
    if (!first) return 0;
    const windowOver = now - first.arrivedAt >= this.settings.maxBatchingWindowSeconds * 1000;
    if (this.buffer.length < this.limit && !windowOver) return 0;
    return this.invoke(this.buffer.slice(0, this.limit));
  }

  private async invoke(batch: Pending[]): Promise<number> {
    let failedFrom: number | undefined;
    try {
      const response = await this.options.handler({ Records: batch.map((p) => p.record) });
      const failed = new Set((response?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
      const index = batch.findIndex((p) => failed.has(p.record.dynamodb?.SequenceNumber ?? ''));
      failedFrom = index >= 0 ? index : undefined;
      this.limit = this.settings.batchSize;
    } catch (error) {
      this.options.log.warn('watcher invocation failed', { error: String(error), records: batch.length });
      failedFrom = 0;
      if (this.settings.bisectBatchOnError && batch.length > 1) this.limit = Math.ceil(batch.length / 2);
    }
    const done = failedFrom ?? batch.length;
    this.buffer.splice(0, done);
    if (failedFrom !== undefined) {
      const head = this.buffer[0]!;
      head.attempts++;
      if (head.attempts > this.settings.retryAttempts) this.discard(`retried ${this.settings.retryAttempts} times`);
    }
    return done;
  }

  private dropExpired(): void {
    const maxAgeMs = this.settings.maxRecordAgeSeconds * 1000;
    while (this.buffer[0] && this.options.clock.now() - this.buffer[0].arrivedAt > maxAgeMs) this.discard('older than the maximum record age');
  }

  private discard(reason: string): void {
    const gone = this.buffer.shift();
    if (!gone) return;
    this.limit = this.settings.batchSize;
    this.options.log.error('stream record given up', { sequenceNumber: gone.record.dynamodb?.SequenceNumber, reason });
    this.options.onDiscard?.(gone.record, reason);
  }
}
