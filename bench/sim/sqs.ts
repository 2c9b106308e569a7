/**
 * An SQS standard queue read by a Lambda event source mapping, in virtual time: per-message
 * DelaySeconds; a received message is invisible for the visibility timeout from its receive and
 * comes back unless deleted; after `maxReceiveCount` receives it goes to the dead-letter queue; delivery is
 * at-least-once: a share of deliveries is delivered a second time shortly after. The mapping
 * runs at most `maxConcurrency` invocations, each with up to `batchSize` messages gathered for at
 * most the batching window, and deletes what the function did not report as failed.
 *
 * Requests are counted as SQS bills them: SendMessageBatch, ReceiveMessage and
 * DeleteMessageBatch carry up to 10 messages each; every one of the mapping's idle pollers not
 * waiting on a running invocation long-polls (one empty receive per 20 s): all of them while the
 * queue is idle, the rest while some invocations run.
 */
import type { OperationMessage, OperationQueue, QueuedOperation } from '../../lib/engine/ports.js';
import type { EventLoop } from './event-loop.js';
import type { InvocationContext, SimulatedFunction } from './lambda.js';
import type { Lognormal } from './latency.js';
import type { Random } from './random.js';

export interface QueueMappingSettings {
  batchSize: number;
  maxBatchingWindowSeconds: number;
  visibilityTimeoutSeconds: number;
  maxReceiveCount: number;
  /** Share of deliveries delivered once more (0 ≤ rate < 1). */
  duplicateRate: number;
  /** Long-polling pollers the mapping keeps while the queue is idle. */
  idlePollers: number;
}

interface StoredMessage {
  messageId: string;
  /** The message as SQS holds it: the JSON text the sender's SendMessageBatch carried. */
  body: string;
  receives: number;
}

export interface Delivery {
  messageId: string;
  message: OperationMessage;
  /** Receives of this message so far, this one included (the record's ApproximateReceiveCount). */
  receiveCount: number;
}

/** SQS's per-request batch limit. */
const SQS_BATCH = 10;
/** Long-poll wait of an empty receive. */
export const LONG_POLL_MS = 20_000;

/** The queue and its event source mapping as the header describes, counting billed requests, deliveries and dead letters. */
export class SimulatedQueue implements OperationQueue {
  private ready: StoredMessage[] = [];
  private nextId = 0;
  private running = 0;
  /** Poller-milliseconds spent long-polling: pollers not waiting on an invocation, integrated over time. */
  private idlePollerMs = 0;
  private idleSince: number;
  private firstReadyAt: number | undefined;
  private wakeAt: number | undefined;
  sendRequests = 0;
  receiveRequests = 0;
  deleteRequests = 0;
  messagesSent = 0;
  deliveries = 0;
  duplicatesDelivered = 0;
  deadLettered = 0;
  /** Messages sent but not yet deleted or dead-lettered. */
  outstanding = 0;

  constructor(
    private readonly loop: EventLoop,
    private readonly random: Random,
    private readonly settings: QueueMappingSettings,
    private readonly requestLatency: Lognormal,
    private readonly fn: SimulatedFunction,
    private readonly handler: (batch: Delivery[], context: InvocationContext) => Promise<{ failedMessageIds: string[] }>,
  ) {
    if (!(settings.duplicateRate >= 0 && settings.duplicateRate < 1)) {
      throw new Error(`duplicateRate: must be in [0, 1), got ${settings.duplicateRate}`);
    }
    this.idleSince = loop.now();
  }

  /** Pollers long-polling now: those of the mapping's idle pollers not waiting on a running invocation. */
  private pollingNow(): number {
    return Math.max(0, this.settings.idlePollers - this.running);
  }

  /** Adds the long-polling time since the last change in running invocations. */
  private accrueIdle(): void {
    const now = this.loop.now();
    this.idlePollerMs += (now - this.idleSince) * this.pollingNow();
    this.idleSince = now;
  }

  get idlePollers(): number {
    return this.settings.idlePollers;
  }

  /**
   * Requests billed so far, including the empty long polls (one per 20 s) of every poller not
   * waiting on an invocation: all of them while the mapping is idle, the rest while some
   * invocations run. `_elapsedMs` is kept for callers; the time is integrated as it passes.
   */
  requests(_elapsedMs?: number): number {
    this.accrueIdle();
    const idlePolls = Math.ceil(this.idlePollerMs / LONG_POLL_MS);
    return this.sendRequests + this.receiveRequests + this.deleteRequests + idlePolls;
  }

  async send(operations: QueuedOperation[]): Promise<void> {
    if (operations.length === 0) return;
    for (const operation of operations) {
      if (!Number.isInteger(operation.delaySeconds) || operation.delaySeconds < 0 || operation.delaySeconds > 900) {
        throw new Error(`delaySeconds: must be a whole number of seconds in 0..900, got ${operation.delaySeconds}`);
      }
    }
    this.sendRequests += Math.ceil(operations.length / SQS_BATCH);
    const bodies = operations.map((operation) => JSON.stringify(operation.message));
    await this.loop.clock.sleep(this.requestLatency.sample(this.random));
    for (const [index, operation] of operations.entries()) {
      const stored: StoredMessage = { messageId: `m-${++this.nextId}`, body: bodies[index]!, receives: 0 };
      this.messagesSent++;
      this.outstanding++;
      this.loop.after(operation.delaySeconds * 1000, () => this.makeVisible(stored));
    }
  }

  private makeVisible(stored: StoredMessage): void {
    if (this.ready.length === 0) this.firstReadyAt = this.loop.now();
    this.ready.push(stored);
    this.pump();
  }

  private pump(): void {
    while (this.ready.length > 0 && this.fn.hasCapacity()) {
      const windowEnds = (this.firstReadyAt ?? this.loop.now()) + this.settings.maxBatchingWindowSeconds * 1000;
      if (this.ready.length < this.settings.batchSize && this.loop.now() < windowEnds) {
        this.wake(windowEnds);
        return;
      }
      const batch = this.ready.splice(0, this.settings.batchSize);
      this.firstReadyAt = this.ready.length > 0 ? this.loop.now() : undefined;
      void this.deliver(batch);
    }
  }

  private wake(at: number): void {
    if (this.wakeAt !== undefined && this.wakeAt <= at && this.wakeAt >= this.loop.now()) return;
    this.wakeAt = at;
    this.loop.at(at, () => {
      if (this.wakeAt === at) this.wakeAt = undefined;
      this.pump();
    });
  }

  private async deliver(batch: StoredMessage[]): Promise<void> {
    // The visibility timeout runs from the receive, not from the invocation's end.
    const receivedAt = this.loop.now();
    this.accrueIdle();
    this.running++;
    this.receiveRequests += Math.ceil(batch.length / SQS_BATCH);
    for (const stored of batch) {
      stored.receives++;
      this.deliveries++;
      if (this.random.next() < this.settings.duplicateRate) {
        // At-least-once: another copy shows up again a little later.
        this.duplicatesDelivered++;
        this.outstanding++;
        const copy: StoredMessage = { messageId: `m-${++this.nextId}`, body: stored.body, receives: 0 };
        this.loop.after(Math.floor(this.random.uniform(0, 10_000)), () => this.makeVisible(copy));
      }
    }
    let failed: Set<string>;
    try {
      const result = await this.fn.invoke(
        (context) =>
          this.handler(
            batch.map((stored) => ({ messageId: stored.messageId, message: JSON.parse(stored.body) as OperationMessage, receiveCount: stored.receives })),
            context,
          ),
        batch.length,
      );
      failed = new Set(result.failedMessageIds);
    } catch {
      failed = new Set(batch.map((stored) => stored.messageId));
    }
    const succeeded = batch.filter((stored) => !failed.has(stored.messageId));
    if (succeeded.length > 0) {
      this.deleteRequests += Math.ceil(succeeded.length / SQS_BATCH);
      this.outstanding -= succeeded.length;
    }
    for (const stored of batch.filter((s) => failed.has(s.messageId))) {
      this.loop.at(receivedAt + this.settings.visibilityTimeoutSeconds * 1000, () => {
        if (stored.receives >= this.settings.maxReceiveCount) {
          this.deadLettered++;
          this.outstanding--;
        } else {
          this.makeVisible(stored);
        }
      });
    }
    this.accrueIdle();
    this.running--;
    this.pump();
  }
}
