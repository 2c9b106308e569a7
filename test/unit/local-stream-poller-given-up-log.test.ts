/** docs/local.md: a stream record is given up, with an error log line, after `retryAttempts` retries or once older than `maxRecordAgeSeconds`. */
import type { DynamoDBRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { StreamPoller } from '../../lib/local/stream-poller.js';
import { FakeClock, RecordingLog } from '../../lib/memory/index.js';

const settings = { batchSize: 1, maxBatchingWindowSeconds: 0, bisectBatchOnError: false, retryAttempts: 1, maxRecordAgeSeconds: 60 };
const record = (n: number, createdAtSeconds?: number): DynamoDBRecord => ({
  eventID: `e${n}`,
  eventName: 'INSERT',
  dynamodb: { SequenceNumber: String(n), ...(createdAtSeconds !== undefined ? { ApproximateCreationDateTime: createdAtSeconds } : {}) },
});

describe('a stream record given up', () => {
  it('is logged at error level, with its sequence number, once its retries are spent', async () => {
    const clock = new FakeClock(0);
    const log = new RecordingLog();
    const source = [record(7)];
    const poller = new StreamPoller({ source: { read: async () => source.splice(0, source.length) }, clock, log, settings, handler: async () => ({ batchItemFailures: [{ itemIdentifier: '7' }] }) });
    await poller.pollOnce();
    expect(log.entries.filter((e) => e.level === 'error')).toEqual([]);
    await poller.pollOnce();
    expect(log.entries.filter((e) => e.level === 'error')).toEqual([{ level: 'error', message: 'stream record given up', attributes: { sequenceNumber: '7', reason: expect.stringContaining('retried') } }]);
  });

  it('is logged at error level, with its sequence number, once older than the maximum record age', async () => {
    const clock = new FakeClock(100_000);
    const log = new RecordingLog();
    const source = [record(8, 39)];
    const handled: unknown[] = [];
    const poller = new StreamPoller({ source: { read: async () => source.splice(0, source.length) }, clock, log, settings, handler: async (event) => void handled.push(event) });
    expect(await poller.pollOnce()).toBe(0);
    expect(handled).toEqual([]);
    expect(log.entries.filter((e) => e.level === 'error')).toEqual([{ level: 'error', message: 'stream record given up', attributes: { sequenceNumber: '8', reason: expect.stringContaining('age') } }]);
  });
});
