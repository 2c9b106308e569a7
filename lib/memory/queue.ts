import { QUEUE } from '../settings.js';
import type { Clock, OperationMessage, OperationQueue, QueuedOperation } from '../engine/ports.js';

/** SQS's longest visibility timeout (a queue's VisibilityTimeout, and ChangeMessageVisibility's: 12 hours). */
const MAX_VISIBILITY_TIMEOUT_SECONDS = 43_200;

export interface ReceivedOperation {
  messageId: string;
  receiptHandle: string;
  receiveCount: number;
  message: OperationMessage;
  sentAt: number;
}

interface StoredMessage {
  messageId: string;
  message: OperationMessage;
  sentAt: number;
  visibleAt: number;
  receiveCount: number;
  receiptHandle?: string;
}

/**
 * The operation queue in memory, with SQS's semantics on an injected clock: per-message delay
 * (at most 900 s), a visibility timeout after each receive, redelivery of what is not deleted, and
 * a dead-letter list after `maxReceiveCount` receives.
 */
export class MemoryOperationQueue implements OperationQueue {
  private readonly clock: Clock;
  private readonly visibilityTimeoutMs: number;
  private readonly maxReceiveCount: number;
  private messages: StoredMessage[] = [];
  private readonly dead: StoredMessage[] = [];
  private sendFault?: { error: Error; times: number };
  private nextId = 0;
  /** SendMessageBatch requests (10 messages each), for cost estimates. */
  sendRequests = 0;
  /** ReceiveMessage and DeleteMessage requests. */
  receiveRequests = 0;
  deleteRequests = 0;

  constructor(options: { clock: Clock; visibilityTimeoutMs?: number; maxReceiveCount?: number }) {
    this.clock = options.clock;
    this.visibilityTimeoutMs = options.visibilityTimeoutMs ?? QUEUE.visibilityTimeoutSeconds * 1000;
    this.maxReceiveCount = options.maxReceiveCount ?? QUEUE.maxReceiveCount;
    // SQS's bounds on the queue's VisibilityTimeout; a NaN would hide every received message for good.
    if (!(this.visibilityTimeoutMs >= 0 && this.visibilityTimeoutMs <= MAX_VISIBILITY_TIMEOUT_SECONDS * 1000)) {
      throw new RangeError(`visibilityTimeoutMs must be from 0 to ${MAX_VISIBILITY_TIMEOUT_SECONDS * 1000}, got ${this.visibilityTimeoutMs}`);
    }
    if (!Number.isInteger(this.maxReceiveCount) || this.maxReceiveCount < 1) {
      throw new RangeError(`maxReceiveCount must be a positive whole number, got ${this.maxReceiveCount}`);
    }
  }

  /** Makes the next `times` sends fail with `error`. */
  failNextSend(error: Error, times = 1): void {
    this.sendFault = { error, times };
  }

  /** Drops the failures `failNextSend` set that have not happened yet. */
  clearFaults(): void {
    this.sendFault = undefined;
  }

  async send(operations: QueuedOperation[]): Promise<void> {
    if (this.sendFault) {
      const fault = this.sendFault;
      if (--fault.times <= 0) this.sendFault = undefined;
      throw fault.error;
    }
    for (const { delaySeconds } of operations) {
      if (!Number.isInteger(delaySeconds) || delaySeconds < 0 || delaySeconds > QUEUE.maxDelaySeconds) {
        throw new RangeError(`delaySeconds must be a whole number from 0 to ${QUEUE.maxDelaySeconds}, got ${delaySeconds}`);
      }
    }
    const now = this.clock.now();
    this.sendRequests += Math.ceil(operations.length / 10);
    for (const { message, delaySeconds } of operations) {
      this.messages.push({
        messageId: `m-${++this.nextId}`,
        message: structuredClone(message),
        sentAt: now,
        visibleAt: now + delaySeconds * 1000,
        receiveCount: 0,
      });
    }
  }

  /**
   * Up to `max` visible messages, those visible longest first (a delayed message from the end of its
   * delay, one received before from the end of its visibility timeout); each is hidden for the
   * visibility timeout. `max` is a positive integer (not bounded by SQS's 10: tests and the CPU
   * benchmark take a whole batch at once).
   */
  receive(max: number): ReceivedOperation[] {
    // A NaN would compare false with every count and hand out every visible message.
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`receive takes a positive whole number of messages, got ${max}`);
    const now = this.clock.now();
    this.receiveRequests++;
    const received: ReceivedOperation[] = [];
    for (const stored of this.messages.filter((m) => m.visibleAt <= now).sort((a, b) => a.visibleAt - b.visibleAt)) {
      if (received.length >= max) break;
      if (stored.receiveCount >= this.maxReceiveCount) {
        this.messages = this.messages.filter((m) => m !== stored);
        this.dead.push(stored);
        continue;
      }
      stored.receiveCount++;
      stored.visibleAt = now + this.visibilityTimeoutMs;
      stored.receiptHandle = `${stored.messageId}#${stored.receiveCount}`;
      received.push({
        messageId: stored.messageId,
        receiptHandle: stored.receiptHandle,
        receiveCount: stored.receiveCount,
        message: structuredClone(stored.message),
        sentAt: stored.sentAt,
      });
    }
    return received;
  }

  /** Deletes a received message; a stale receipt handle (the message was received again) is ignored, as SQS does. */
  delete(receiptHandle: string): void {
    this.deleteRequests++;
    this.messages = this.messages.filter((m) => m.receiptHandle !== receiptHandle);
  }

  /** Drops every message, visible, in flight or delayed (SQS's PurgeQueue): messages lost. */
  purge(): void {
    this.messages = [];
  }

  /** Makes a received message visible again after `seconds`, a whole number from 0 to 43 200 (SQS's 12 hours). */
  changeVisibility(receiptHandle: string, seconds: number): void {
    if (!Number.isInteger(seconds) || seconds < 0 || seconds > MAX_VISIBILITY_TIMEOUT_SECONDS) {
      throw new RangeError(`visibility timeout must be a whole number of seconds from 0 to ${MAX_VISIBILITY_TIMEOUT_SECONDS}, got ${seconds}`);
    }
    const stored = this.messages.find((m) => m.receiptHandle === receiptHandle);
    if (stored) stored.visibleAt = this.clock.now() + seconds * 1000;
  }

  /** Messages not yet deleted, with the time each becomes visible. */
  pending(): { messageId: string; message: OperationMessage; visibleAt: number; receiveCount: number }[] {
    return this.messages.map(({ messageId, message, visibleAt, receiveCount }) => ({
      messageId,
      message: structuredClone(message),
      visibleAt,
      receiveCount,
    }));
  }

  /** When the next message becomes visible, or undefined when the queue is empty. */
  nextVisibleAt(): number | undefined {
    return this.messages.reduce<number | undefined>((min, m) => (min === undefined || m.visibleAt < min ? m.visibleAt : min), undefined);
  }

  deadLetters(): { messageId: string; message: OperationMessage; receiveCount: number }[] {
    return this.dead.map(({ messageId, message, receiveCount }) => ({ messageId, message: structuredClone(message), receiveCount }));
  }
}
