import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { StreamPoller, streamRecordCreatedAt } from '../../lib/local/stream-poller.js';
import { WATCHER } from '../../lib/settings.js';
import { FakeClock, RecordingLog } from '../../lib/memory/index.js';

const record = (n: number, createdSeconds?: number): DynamoDBRecord => ({
  eventID: `e${n}`,
  eventName: 'INSERT',
  dynamodb: { SequenceNumber: String(n), ...(createdSeconds === undefined ? {} : { ApproximateCreationDateTime: createdSeconds }) },
});
const sequences = (event: DynamoDBStreamEvent) => event.Records.map((r) => Number(r.dynamodb!.SequenceNumber));
const settings = { batchSize: 4, maxBatchingWindowSeconds: 0, bisectBatchOnError: true, retryAttempts: 2, maxRecordAgeSeconds: 60 };

function streamOf(records: DynamoDBRecord[]) {
  return { read: async () => records.splice(0, records.length) };
}

describe('StreamPoller bounds', () => {
  it('delivers a record exactly as old as the maximum record age: only an older one is given up', async () => {
    const clock = new FakeClock(100_000);
    const discarded: string[] = [];
    const handled: number[] = [];
    const poller = new StreamPoller({
      source: streamOf([record(1, 100 - 61), record(2, 100 - 60)]),
      clock,
      log: new RecordingLog(),
      settings,
      onDiscard: (r) => discarded.push(r.dynamodb!.SequenceNumber!),
      handler: async (e) => void handled.push(...sequences(e)),
    });
    expect(await poller.pollOnce()).toBe(1);
    expect(handled).toEqual([2]);
    expect(discarded).toEqual(['1']);
  });

  it('retries a failing batch whole, without splitting it, when bisecting on error is off', async () => {
    const clock = new FakeClock(0);
    const seen: number[][] = [];
    const discarded: string[] = [];
    const poller = new StreamPoller({
      source: streamOf([record(1), record(2), record(3), record(4)]),
      clock,
      log: new RecordingLog(),
      settings: { ...settings, bisectBatchOnError: false, retryAttempts: 1 },
      onDiscard: (r, reason) => discarded.push(`${r.dynamodb!.SequenceNumber}: ${reason}`),
      handler: async (e) => {
        seen.push(sequences(e));
        if (sequences(e).includes(1)) throw new Error('poison');
      },
    });
    for (let i = 0; i < 4; i++) await poller.pollOnce();
    expect(seen).toEqual([[1, 2, 3, 4], [1, 2, 3, 4], [2, 3, 4]]);
    expect(discarded).toEqual(['1: retried 1 times']);
  });

  it('goes back to full batches once the halves of a split batch are delivered, also when a half was split again', async () => {
    const clock = new FakeClock(0);
    const seen: number[][] = [];
    const poller = new StreamPoller({
      source: streamOf(Array.from({ length: 12 }, (_, i) => record(i + 1))),
      clock,
      log: new RecordingLog(),
      settings: { ...settings, retryAttempts: 0 },
      handler: async (e) => {
        seen.push(sequences(e));
        if (sequences(e).includes(1)) throw new Error('poison');
      },
    });
    for (let i = 0; i < 8; i++) await poller.pollOnce();
    // 1–4 split into 1–2 and 3–4; 1–2 split into 1 and 2; 1 given up (no retries); then 2, 3–4, and full batches.
    expect(seen).toEqual([[1, 2, 3, 4], [1, 2], [1], [2], [3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]);
  });

  it('uses the deployed watcher mapping\'s settings (lib/settings.ts) when given none', async () => {
    const clock = new FakeClock(0);
    const batches: number[] = [];
    const poller = new StreamPoller({
      source: streamOf(Array.from({ length: WATCHER.batchSize + 5 }, (_, i) => record(i + 1))),
      clock,
      log: new RecordingLog(),
      handler: async (e) => void batches.push(e.Records.length),
    });
    expect(await poller.pollOnce()).toBe(WATCHER.batchSize);
    expect(await poller.pollOnce()).toBe(5);
    expect(batches).toEqual([WATCHER.batchSize, 5]);
  });

  it('counts the age of a record whose creation time is not a finite number from when it was read', () => {
    const at = (value: unknown) => ({ dynamodb: { ApproximateCreationDateTime: value as number } }) as DynamoDBRecord;
    expect(streamRecordCreatedAt(at(Number.NaN), 5_000)).toBe(5_000);
    expect(streamRecordCreatedAt(at(Number.POSITIVE_INFINITY), 5_000)).toBe(5_000);
    expect(streamRecordCreatedAt(at('12'), 5_000)).toBe(5_000);
    expect(streamRecordCreatedAt(at(12), 5_000)).toBe(12_000);
  });
});
