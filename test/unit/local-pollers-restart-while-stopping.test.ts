/**
 * A poller started again while its stop is still under way (a batch being handled) runs its new
 * loops only once the old ones have ended: never more loops at once than one start makes.
 */
import type { DynamoDBRecord, SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { QueuePoller } from '../../lib/local/queue-poller.js';
import { StreamPoller } from '../../lib/local/stream-poller.js';
import { FakeClock, RecordingLog } from '../../lib/memory/index.js';

function streamRecord(sequenceNumber: string): DynamoDBRecord {
  return { eventID: `e${sequenceNumber}`, eventName: 'INSERT', dynamodb: { SequenceNumber: sequenceNumber } };
}

function message(id: string): SQSRecord {
  return { messageId: id, receiptHandle: `r-${id}`, body: '{}' } as SQSRecord;
}

describe('QueuePoller started again while a stop is under way', () => {
  it('keeps to maxConcurrency batches at once, the new workers beginning once the old batch is handled', async () => {
    const clock = new FakeClock(0);
    const visible: SQSRecord[] = [message('a')];
    const deleted: string[] = [];
    let handling = 0;
    let mostAtOnce = 0;
    const handled: { id: string; at: number }[] = [];
    const poller = new QueuePoller({
      source: {
        receive: async (max) => visible.splice(0, Math.min(max, 1)),
        delete: async (records) => void deleted.push(...records.map((r) => r.messageId)),
      },
      clock,
      log: new RecordingLog(),
      idleMs: 200,
      settings: { batchSize: 1, maxBatchingWindowSeconds: 0, maxConcurrency: 1 },
      handler: async (event) => {
        handling++;
        mostAtOnce = Math.max(mostAtOnce, handling);
        handled.push(...event.Records.map((r) => ({ id: r.messageId, at: clock.now() })));
        await clock.sleep(5_000);
        handling--;
        return { batchItemFailures: [] };
      },
    });
    poller.start();
    await clock.advance(1_000); // 'a' is being handled until 5 000 ms
    let stopped = false;
    const stopping = poller.stop().then(() => (stopped = true));
    poller.start();
    visible.push(message('b'), message('c'));
    await clock.advance(3_000);
    // The old worker is still on 'a': nothing else was received meanwhile.
    expect(handled).toEqual([{ id: 'a', at: 0 }]);
    await clock.advance(1_000);
    expect(stopped).toBe(true);
    await stopping;
    await clock.advance(20_000);
    // One worker after the restart, as configured: 'b' then 'c', one batch at a time.
    expect(handled).toEqual([
      { id: 'a', at: 0 },
      { id: 'b', at: 5_000 },
      { id: 'c', at: 10_000 },
    ]);
    expect(mostAtOnce).toBe(1);
    expect(deleted).toEqual(['a', 'b', 'c']);
    const last = poller.stop();
    await clock.advance(200);
    await last;
  });

  it('a stop before the new workers began leaves none running: nothing more is received', async () => {
    const clock = new FakeClock(0);
    const visible: SQSRecord[] = [message('a')];
    let receives = 0;
    const poller = new QueuePoller({
      source: {
        receive: async (max) => {
          receives++;
          return visible.splice(0, max);
        },
        delete: async () => {},
      },
      clock,
      log: new RecordingLog(),
      idleMs: 200,
      settings: { batchSize: 1, maxBatchingWindowSeconds: 0, maxConcurrency: 2 },
      handler: async () => {
        await clock.sleep(5_000);
        return { batchItemFailures: [] };
      },
    });
    poller.start();
    await clock.advance(1_000);
    const readsBefore = receives;
    const first = poller.stop();
    poller.start();
    const second = poller.stop();
    await clock.advance(5_000);
    await Promise.all([first, second]);
    await clock.advance(10_000);
    expect(receives).toBe(readsBefore);
  });
});

describe('StreamPoller started again while a stop is under way', () => {
  it('keeps its one loop: the next batch goes to the handler only once the one under way is handled', async () => {
    const clock = new FakeClock(0);
    const source: DynamoDBRecord[] = [streamRecord('1')];
    let handling = 0;
    let mostAtOnce = 0;
    const handled: { first: string | undefined; at: number }[] = [];
    const poller = new StreamPoller({
      source: { read: async () => source.splice(0, source.length) },
      clock,
      log: new RecordingLog(),
      idleMs: 200,
      settings: { batchSize: 1, maxBatchingWindowSeconds: 0, bisectBatchOnError: true, retryAttempts: 2, maxRecordAgeSeconds: 60 },
      handler: async (event) => {
        handling++;
        mostAtOnce = Math.max(mostAtOnce, handling);
        handled.push({ first: event.Records[0]?.dynamodb?.SequenceNumber, at: clock.now() });
        await clock.sleep(5_000);
        handling--;
        return { batchItemFailures: [] };
      },
    });
    poller.start();
    await clock.advance(1_000);
    const stopping = poller.stop();
    poller.start();
    source.push(streamRecord('2'));
    await clock.advance(3_000);
    // The old loop is still on '1': nothing else went to the handler meanwhile.
    expect(handled).toEqual([{ first: '1', at: 0 }]);
    await clock.advance(1_000);
    await stopping;
    await clock.advance(10_000);
    expect(handled).toEqual([
      { first: '1', at: 0 },
      { first: '2', at: 5_000 },
    ]);
    expect(mostAtOnce).toBe(1);
    const last = poller.stop();
    await clock.advance(200);
    await last;
  });
});
