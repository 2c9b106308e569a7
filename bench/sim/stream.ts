import type { EventLoop } from './event-loop.js';
import type { SimulatedFunction } from './lambda.js';
import type { Lognormal } from './latency.js';
import type { Random } from './random.js';

/** The settings of a stream → Lambda event source mapping that the simulation honours. */
export interface StreamMappingSettings {
  /** Number of stream shards; records are spread over them by partition key. */
  shards: number;
  batchSize: number;
  maxBatchingWindowSeconds: number;
  /** Records retried this many times after a failure, then dropped (-1: retried without end; the simulation does not expire records). */
  retryAttempts: number;
}

interface PendingRecord<T> {
  item: T;
  visibleAt: number;
  attempts: number;
}

interface Shard<T> {
  records: PendingRecord<T>[];
  busy: boolean;
  wakeAt: number | undefined;
}

/**
 * A DynamoDB stream read by a Lambda event source mapping: each change lands on the shard of its
 * partition key after a propagation delay (never overtaking an earlier change on that shard, so
 * order per key is kept); one invocation per shard at a time (parallelization factor 1) gets up
 * to `batchSize` records, waiting at most the batching window to fill a batch. With
 * ReportBatchItemFailures the batch is retried from the first failed record.
 */
export class StreamSimulator<T> {
  private readonly shards: Shard<T>[];
  /** Batches handed to the function. */
  batches = 0;
  /** Records dropped after their retry attempts ran out. */
  dropped = 0;
  /** Records delivered (including redeliveries). */
  delivered = 0;

  constructor(
    private readonly loop: EventLoop,
    private readonly random: Random,
    private readonly settings: StreamMappingSettings,
    private readonly propagation: Lognormal,
    private readonly fn: SimulatedFunction,
    private readonly handler: (batch: T[]) => Promise<{ failedIds: string[] }>,
    private readonly idOf: (item: T) => string,
  ) {
    if (!(settings.shards >= 1)) throw new Error(`shards: must be at least 1, got ${settings.shards}`);
    if (!(settings.batchSize >= 1)) throw new Error(`batchSize: must be at least 1, got ${settings.batchSize}`);
    this.shards = Array.from({ length: settings.shards }, () => ({ records: [], busy: false, wakeAt: undefined }));
  }

  /** Appends a change for `partitionKey` to its shard. */
  publish(partitionKey: string, item: T): void {
    const shard = this.shards[fnv1a(partitionKey) % this.shards.length]!;
    const last = shard.records[shard.records.length - 1];
    const visibleAt = Math.max(last?.visibleAt ?? 0, this.loop.now() + this.propagation.sample(this.random));
    shard.records.push({ item, visibleAt, attempts: 0 });
    this.wake(shard, visibleAt);
  }

  /** Records not yet processed, over all shards. */
  backlog(): number {
    return this.shards.reduce((sum, shard) => sum + shard.records.length, 0);
  }

  private wake(shard: Shard<T>, at: number): void {
    if (shard.wakeAt !== undefined && shard.wakeAt <= at) return;
    shard.wakeAt = at;
    this.loop.at(at, () => {
      if (shard.wakeAt === at) shard.wakeAt = undefined;
      this.poll(shard);
    });
  }

  private poll(shard: Shard<T>): void {
    if (shard.busy) return;
    const now = this.loop.now();
    const first = shard.records[0];
    if (!first) return;
    if (first.visibleAt > now) return this.wake(shard, first.visibleAt);
    let available = 0;
    while (available < this.settings.batchSize && (shard.records[available]?.visibleAt ?? Infinity) <= now) available++;
    const windowEnds = first.visibleAt + this.settings.maxBatchingWindowSeconds * 1000;
    if (available < this.settings.batchSize && now < windowEnds) {
      const nextVisible = shard.records[available]?.visibleAt;
      return this.wake(shard, nextVisible !== undefined ? Math.min(nextVisible, windowEnds) : windowEnds);
    }
    const batch = shard.records.slice(0, available);
    shard.busy = true;
    this.batches++;
    this.delivered += batch.length;
    void this.deliver(shard, batch);
  }

  private async deliver(shard: Shard<T>, batch: PendingRecord<T>[]): Promise<void> {
    let failedIds: string[];
    try {
      failedIds = (await this.fn.invoke(() => this.handler(batch.map((record) => record.item)), batch.length)).failedIds;
    } catch {
      failedIds = batch.map((record) => this.idOf(record.item));
    }
    const failed = new Set(failedIds);
    const firstFailed = batch.findIndex((record) => failed.has(this.idOf(record.item)));
    const done = firstFailed === -1 ? batch.length : firstFailed;
    shard.records.splice(0, done);
    if (firstFailed !== -1) {
      const head = shard.records[0]!;
      head.attempts++;
      if (this.settings.retryAttempts >= 0 && head.attempts > this.settings.retryAttempts) {
        shard.records.shift();
        this.dropped++;
      }
    }
    shard.busy = false;
    // A failed batch is retried after a short pause rather than in a tight loop.
    this.wake(shard, this.loop.now() + (firstFailed === -1 ? 0 : 1000));
  }
}

/** 32-bit FNV-1a, to spread partition keys over shards deterministically. */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
