/**
 * The local runtime's default backend: the engine's in-memory store, queue and EBS model on the
 * wall clock, with EBS's typical transition times. Needs nothing but Node.
 */
import type { DynamoDBRecord, SQSRecord } from 'aws-lambda';
import type { Clock } from '../engine/ports.js';
import { MemoryEbs, type TimedStep } from '../memory/ebs.js';
import { MemoryOperationQueue } from '../memory/queue.js';
import { MemoryRateBudget } from '../memory/rate-budget.js';
import { MemoryRecordStore } from '../memory/store.js';
import { queueRecord, streamRecord } from './event-records.js';
import type { QueueSource } from './queue-poller.js';
import type { StreamSource } from './stream-poller.js';

/** Roughly what EBS takes for an empty gp3 volume (milliseconds). */
export const LOCAL_EBS_TIMINGS: Record<TimedStep, number> = {
  create: 2_000,
  attach: 2_000,
  detach: 2_000,
  delete: 1_000,
  modify: 5_000,
  optimize: 20_000,
};

/**
 * The availability zones of the local region (us-east-1, where the demo instances run in
 * us-east-1a) that the EBS model knows, so a volume can be created in any of them.
 */
export const LOCAL_AVAILABILITY_ZONES = ['us-east-1a', 'us-east-1b', 'us-east-1c', 'us-east-1d', 'us-east-1e', 'us-east-1f'] as const;

export interface MemoryBackend {
  store: MemoryRecordStore;
  queue: MemoryOperationQueue;
  rateBudget: MemoryRateBudget;
  ebs: MemoryEbs;
  stream: StreamSource;
  messages: QueueSource;
}

export function createMemoryBackend(options: { clock: Clock; ownerTagValue: string; visibilityTimeoutMs?: number }): MemoryBackend {
  const store = new MemoryRecordStore();
  const queue = new MemoryOperationQueue({
    clock: options.clock,
    ...(options.visibilityTimeoutMs !== undefined ? { visibilityTimeoutMs: options.visibilityTimeoutMs } : {}),
  });
  const ebs = new MemoryEbs({ clock: options.clock, ownerTagValue: options.ownerTagValue, timings: LOCAL_EBS_TIMINGS, availabilityZones: LOCAL_AVAILABILITY_ZONES });

  const pending: DynamoDBRecord[] = [];
  store.onChange((change) => pending.push(streamRecord({ ...change, at: options.clock.now() })));
  const stream: StreamSource = { read: async () => pending.splice(0, pending.length) };

  const messages: QueueSource = {
    receive: async (max) =>
      queue.receive(max).map((m) => queueRecord({ messageId: m.messageId, receiptHandle: m.receiptHandle, receiveCount: m.receiveCount, sentAt: m.sentAt, body: m.message })),
    delete: async (records: SQSRecord[]) => {
      for (const record of records) queue.delete(record.receiptHandle);
    },
  };
  return { store, queue, rateBudget: new MemoryRateBudget(), ebs, stream, messages };
}
