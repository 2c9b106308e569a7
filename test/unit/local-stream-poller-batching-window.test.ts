/** The stream poller's batching window is in seconds, counted from when the first record of a batch that is not full was read. */
import type { DynamoDBRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { StreamPoller } from '../../lib/local/stream-poller.js';
import { FakeClock, RecordingLog } from '../../lib/memory/index.js';

const record = (n: number): DynamoDBRecord => ({ eventID: `e${n}`, eventName: 'INSERT', dynamodb: { SequenceNumber: String(n) } });

describe('StreamPoller batching window', () => {
  it('holds a batch that is not full for the whole window of maxBatchingWindowSeconds, then delivers it', async () => {
    const clock = new FakeClock(0);
    const source = [record(1), record(2)];
    const seen: string[][] = [];
    const poller = new StreamPoller({
      source: { read: async () => source.splice(0, source.length) },
      clock,
      log: new RecordingLog(),
      settings: { batchSize: 10, maxBatchingWindowSeconds: 2, bisectBatchOnError: true, retryAttempts: 2, maxRecordAgeSeconds: 60 },
      handler: async (event) => void seen.push(event.Records.map((r) => r.dynamodb!.SequenceNumber!)),
    });
    expect(await poller.pollOnce()).toBe(0);
    await clock.advance(1_999);
    expect(await poller.pollOnce()).toBe(0);
    expect(seen).toEqual([]);
    await clock.advance(1);
    expect(await poller.pollOnce()).toBe(2);
    expect(seen).toEqual([['1', '2']]);
  });
});
