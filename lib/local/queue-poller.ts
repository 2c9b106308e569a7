/**
 * Feeds a queue handler the way Lambda's SQS event source mapping does: batches of up to
 * `batchSize` gathered for at most the batching window, up to `maxConcurrency` batches at once,
 * messages named in the partial batch response (or all, when the handler throws or names a
 * message not in the batch) left in the queue for redelivery after the visibility timeout, the
 * rest deleted. Dead-lettering after `maxReceiveCount` receives is the queue's own (its redrive
 * policy). A receive that fails while a batch is being gathered hands over the messages already
 * received, which would otherwise stay hidden for the visibility timeout.
 */
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { Clock, Log } from '../engine/ports.js';
import { EXECUTOR } from '../settings.js';
import { PollerRuns, pollUntilStopped } from './poll-loop.js';

export interface QueueSource {
  /** Up to `max` visible messages, hidden for the visibility timeout once returned. */
  receive(max: number): Promise<SQSRecord[]>;
  delete(records: SQSRecord[]): Promise<void>;
}

export interface QueuePollerSettings {
  batchSize: number;
  maxBatchingWindowSeconds: number;
  maxConcurrency: number;
}

export interface QueuePollerOptions {
  source: QueueSource;
  handler: (event: SQSEvent) => Promise<SQSBatchResponse | void>;
  clock: Clock;
  log: Log;
  settings?: QueuePollerSettings;
  idleMs?: number;
}

export class QueuePoller {
  private readonly settings: QueuePollerSettings;
  private readonly runs = new PollerRuns();

  constructor(private readonly options: QueuePollerOptions) {
    this.settings = options.settings ?? EXECUTOR;
  }

  /** Starts `maxConcurrency` workers; a start while a stop is under way begins once that stop is over. */
  start(): void {
    this.runs.start((running) => Array.from({ length: this.settings.maxConcurrency }, () => this.work(running)));
  }

  /** Stops the workers; resolves once the batches under way are handled and their messages deleted. */
  async stop(): Promise<void> {
    await this.runs.stop();
  }

  private work(running: () => boolean): Promise<void> {
    const { clock, log } = this.options;
    return pollUntilStopped({ running, pollOnce: () => this.pollOnce(), clock, log, idleMs: this.options.idleMs ?? 200, name: 'queue poller' });
  }

  /** Gathers one batch (within the batching window), invokes the handler, deletes what succeeded. */
  async pollOnce(): Promise<number> {
    const batch: SQSRecord[] = [];
    const windowEnds = this.options.clock.now() + this.settings.maxBatchingWindowSeconds * 1000;
    for (;;) {
      let received: SQSRecord[];
      try {
        received = await this.options.source.receive(Math.min(10, this.settings.batchSize - batch.length));
      } catch (error) {
        // The messages already received are hidden for the visibility timeout: they go to the
        // handler now, as Lambda invokes with what it has, rather than come back minutes later.
        if (batch.length === 0) throw error;
        this.options.log.warn('executor batch receive failed; handing over the messages already received', { error: String(error), messages: batch.length });
        break;
      }
      batch.push(...received);
      // A batch goes once full or once the window is over, however many messages are still coming in.
      if (batch.length === 0 || batch.length >= this.settings.batchSize || this.options.clock.now() >= windowEnds) break;
      if (received.length === 0) await this.options.clock.sleep(Math.min(100, Math.max(0, windowEnds - this.options.clock.now())));
    }
    if (batch.length === 0) return 0;
    const log = this.options.log;
    log.debug('executor batch received', { messages: batch.length, receives: batch.map((r) => Number(r.attributes?.ApproximateReceiveCount ?? 1)).join(',') });
    const started = this.options.clock.now();
    let failed: Set<string>;
    try {
      const response = await this.options.handler({ Records: batch });
      const named = (response?.batchItemFailures ?? []).map((f) => f.itemIdentifier);
      failed = new Set(named);
      // Lambda takes an identifier that names no message of the batch for a failure of the whole batch.
      if (!named.every((id) => batch.some((r) => r.messageId === id))) {
        log.warn('executor response names a message not in its batch; its messages will be redelivered', { messages: batch.length });
        failed = new Set(batch.map((r) => r.messageId));
      }
    } catch (error) {
      log.warn('executor invocation failed; its messages will be redelivered', { error: String(error), messages: batch.length });
      failed = new Set(batch.map((r) => r.messageId));
    }
    await this.options.source.delete(batch.filter((r) => !failed.has(r.messageId)));
    log.debug('executor batch handled', { deleted: batch.length - failed.size, redelivered: failed.size, ms: this.options.clock.now() - started });
    return batch.length;
  }
}
