/** The engine functions given only part of what they read: an environment setting alone, a stream record without keys. */
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { itemKey, toItem } from '../../lib/aws/record-item.js';
import { EC2_REQUEST_BUCKETS, environmentRateBudgets } from '../../lib/engine/config.js';
import { readFunctionEnvironment } from '../../lib/functions/environment.js';
import { createWatcherHandler } from '../../lib/functions/handlers.js';
import { FakeClock, MemoryOperationQueue, MemoryRecordStore, RecordingLog, RecordingMetrics } from '../../lib/memory/index.js';
import { volume as storedVolume } from './memory-store-fixtures.js';

const BASE_ENV = { TABLE_NAME: 't', QUEUE_URL: 'q', OWNER_TAG_VALUE: 's', POWERTOOLS_METRICS_NAMESPACE: 'EbsProvisioner/s' };
const at = '2026-01-01T00:00:00.000Z';

describe('function environment', () => {
  it("EXECUTOR_MAX_CONCURRENCY alone shares EC2's buckets at their standard pace among that many environments", () => {
    const config = readFunctionEnvironment({ ...BASE_ENV, EXECUTOR_MAX_CONCURRENCY: '10' }).engineConfig;
    expect(config.concurrentEnvironments).toBe(10);
    expect(config.rateBudgets).toEqual(environmentRateBudgets(10, EC2_REQUEST_BUCKETS));
    expect(config.rateBudgets?.AttachVolume).toEqual({ burst: 5, ratePerSecond: 0.5 });
    expect(config.rateBudgets?.CreateTags).toEqual({ burst: 10, ratePerSecond: 1 });
    expect(config.accountRateBudgets).toBeUndefined();
  });
});

describe('watcher handler', () => {
  it('skips a stream record without keys as one naming no record of ours, counted and logged without keys, and handles the others', async () => {
    const clock = new FakeClock(Date.parse(at));
    const store = new MemoryRecordStore();
    const queue = new MemoryOperationQueue({ clock });
    const metrics = new RecordingMetrics();
    const log = new RecordingLog();
    const volume = storedVolume('data-1', at, { version: 1 });
    await store.create(volume);
    const handler = createWatcherHandler({ store, queue, clock, metrics, log });
    const keyless: DynamoDBRecord = { eventID: 'e-1', eventName: 'INSERT', dynamodb: { SequenceNumber: '100' } };
    const valid: DynamoDBRecord = {
      eventID: 'e-2',
      eventName: 'INSERT',
      dynamodb: { SequenceNumber: '200', Keys: marshall(itemKey({ kind: 'volume', volumeId: 'data-1' })) as never, NewImage: marshall(toItem(volume), { removeUndefinedValues: true }) as never },
    };
    expect(await handler({ Records: [keyless, valid] })).toEqual({ batchItemFailures: [] });
    expect(metrics.counter('InvalidRecords')).toBe(1);
    expect(log.entries).toContainEqual({ level: 'warn', message: 'stream record names no volume or attachment; skipped', attributes: { eventID: 'e-1' } });
    expect(queue.pending().map((pending) => pending.message.op)).toEqual(['create-volume']);
  });
});
