import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { StreamPoller } from '../../lib/local/stream-poller.js';
import { FakeClock, RecordingLog } from '../../lib/memory/index.js';

const record = (n: number): DynamoDBRecord => ({ eventID: `e${n}`, eventName: 'INSERT', dynamodb: { SequenceNumber: String(n) } });
const sequences = (event: DynamoDBStreamEvent) => event.Records.map((r) => Number(r.dynamodb!.SequenceNumber));
const settings = { batchSize: 8, maxBatchingWindowSeconds: 1, bisectBatchOnError: true, retryAttempts: 2, maxRecordAgeSeconds: 60 };

describe('StreamPoller, a half of a split batch that fails in part', () => {
  it('delivers the rest of that half on its own next, then the other half, then full batches again', async () => {
    const clock = new FakeClock(0);
    const seen: number[][] = [];
    let invocations = 0;
    const poller = new StreamPoller({
      source: { read: async () => (clock.now() === 0 ? Array.from({ length: 12 }, (_, i) => record(i + 1)) : []) },
      clock,
      log: new RecordingLog(),
      settings,
      handler: async (event) => {
        seen.push(sequences(event));
        invocations++;
        // The first batch fails as a whole (split in two); the first half then fails from record 3 on.
        if (invocations === 1) throw new Error('watcher crashed');
        if (invocations === 2) return { batchItemFailures: [{ itemIdentifier: '3' }] };
        return { batchItemFailures: [] };
      },
    });
    for (let i = 0; i < 6; i++) {
      await poller.pollOnce();
      await clock.advance(1_000);
    }
    expect(seen).toEqual([
      [1, 2, 3, 4, 5, 6, 7, 8],
      [1, 2, 3, 4],
      [3, 4],
      [5, 6, 7, 8],
      [9, 10, 11, 12],
    ]);
  });
});
