import type { DynamoDBRecord, DynamoDBStreamEvent, SQSEvent, SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { QueuePoller } from '../../lib/local/queue-poller.js';
import { StreamPoller } from '../../lib/local/stream-poller.js';
import { FakeClock, RecordingLog } from '../../lib/memory/index.js';

const record = (n: number): DynamoDBRecord => ({ eventID: `e${n}`, eventName: 'INSERT', dynamodb: { SequenceNumber: String(n) } });
const sequences = (event: DynamoDBStreamEvent) => event.Records.map((r) => Number(r.dynamodb!.SequenceNumber));
const settings = { batchSize: 4, maxBatchingWindowSeconds: 1, bisectBatchOnError: true, retryAttempts: 2, maxRecordAgeSeconds: 60 };

function streamOf(records: DynamoDBRecord[]) {
  return { read: async () => records.splice(0, records.length) };
}

describe('StreamPoller', () => {
  it('waits for a full batch or the batching window, then delivers in order', async () => {
    const clock = new FakeClock(0);
    const source = [record(1), record(2)];
    const seen: number[][] = [];
    const poller = new StreamPoller({ source: streamOf(source), clock, log: new RecordingLog(), settings, handler: async (e) => void seen.push(sequences(e)) });
    expect(await poller.pollOnce()).toBe(0);
    source.push(record(3), record(4), record(5));
    expect(await poller.pollOnce()).toBe(4);
    await clock.advance(1_000);
    expect(await poller.pollOnce()).toBe(1);
    expect(seen).toEqual([[1, 2, 3, 4], [5]]);
  });

  it('retries from the first failed record, never skipping one', async () => {
    const clock = new FakeClock(0);
    const seen: number[][] = [];
    let failOnce = true;
    const poller = new StreamPoller({
      source: streamOf([record(1), record(2), record(3), record(4)]),
      clock,
      log: new RecordingLog(),
      settings,
      handler: async (e) => {
        seen.push(sequences(e));
        if (!failOnce) return { batchItemFailures: [] };
        failOnce = false;
        return { batchItemFailures: [{ itemIdentifier: '4' }, { itemIdentifier: '2' }] };
      },
    });
    await poller.pollOnce();
    await clock.advance(1_000);
    await poller.pollOnce();
    expect(seen).toEqual([[1, 2, 3, 4], [2, 3, 4]]);
  });

  it('bisects a failing batch and gives up on a record after the retry attempts', async () => {
    const clock = new FakeClock(0);
    const seen: number[][] = [];
    const discarded: string[] = [];
    const poller = new StreamPoller({
      source: streamOf([record(1), record(2), record(3), record(4)]),
      clock,
      log: new RecordingLog(),
      settings,
      onDiscard: (r, reason) => discarded.push(`${r.dynamodb!.SequenceNumber}: ${reason}`),
      handler: async (e) => {
        seen.push(sequences(e));
        if (sequences(e).includes(1)) throw new Error('poison');
      },
    });
    for (let i = 0; i < 5; i++) {
      await poller.pollOnce();
      await clock.advance(1_000);
    }
    expect(seen.slice(0, 4)).toEqual([[1, 2, 3, 4], [1, 2], [1], [2, 3, 4]]);
    expect(discarded).toEqual(['1: retried 2 times']);
  });

  it('gives up on records older than the maximum record age', async () => {
    const clock = new FakeClock(0);
    const discarded: string[] = [];
    const poller = new StreamPoller({
      source: streamOf([record(1)]),
      clock,
      log: new RecordingLog(),
      settings: { ...settings, retryAttempts: 100 },
      onDiscard: (r, reason) => discarded.push(`${r.dynamodb!.SequenceNumber}: ${reason}`),
      handler: async () => ({ batchItemFailures: [{ itemIdentifier: '1' }] }),
    });
    await clock.advance(1_000);
    await poller.pollOnce();
    await clock.advance(61_000);
    expect(await poller.pollOnce()).toBe(0);
    expect(discarded).toEqual(['1: older than the maximum record age']);
  });
});

describe('QueuePoller', () => {
  const message = (id: string): SQSRecord => ({ messageId: id, receiptHandle: `r-${id}`, body: '{}' }) as SQSRecord;

  it('deletes what succeeded and leaves failed messages (or a thrown batch) for redelivery', async () => {
    const clock = new FakeClock(0);
    const visible = [message('a'), message('b'), message('c')];
    const deleted: string[] = [];
    const source = {
      receive: async (max: number) => visible.splice(0, max),
      delete: async (records: SQSRecord[]) => void deleted.push(...records.map((r) => r.messageId)),
    };
    let calls = 0;
    const poller = new QueuePoller({
      source,
      clock,
      log: new RecordingLog(),
      settings: { batchSize: 3, maxBatchingWindowSeconds: 0, maxConcurrency: 1 },
      handler: async (event: SQSEvent) => {
        calls++;
        if (calls === 2) throw new Error('executor crashed');
        return { batchItemFailures: event.Records.filter((r) => r.messageId === 'b').map((r) => ({ itemIdentifier: r.messageId })) };
      },
    });
    expect(await poller.pollOnce()).toBe(3);
    expect(deleted).toEqual(['a', 'c']);
    visible.push(message('b'));
    expect(await poller.pollOnce()).toBe(1);
    expect(deleted).toEqual(['a', 'c']);
    expect(await poller.pollOnce()).toBe(0);
  });
});
