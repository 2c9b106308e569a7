import type { DynamoDBRecord, DynamoDBStreamEvent, SQSEvent, SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { createMemoryBackend, LOCAL_AVAILABILITY_ZONES } from '../../lib/local/memory-backend.js';
import { DescribeStreamCommand, ExpiredIteratorException, GetRecordsCommand, GetShardIteratorCommand, ResourceNotFoundException, TrimmedDataAccessException } from '@aws-sdk/client-dynamodb-streams';
import { QueueDoesNotExist } from '@aws-sdk/client-sqs';
import { dynamoStreamSource, LOCAL_AVAILABILITY_ZONE, lostWithEmulatorState, sqsQueueSource } from '../../lib/local/moto-backend.js';
import { QueuePoller } from '../../lib/local/queue-poller.js';
import { QUEUE } from '../../lib/settings.js';
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

  it('retries the whole batch when the response names a record not in it, as Lambda does', async () => {
    const clock = new FakeClock(0);
    const seen: number[][] = [];
    const log = new RecordingLog();
    let failOnce = true;
    const poller = new StreamPoller({
      source: streamOf([record(1), record(2), record(3), record(4)]),
      clock,
      log,
      settings,
      handler: async (e) => {
        seen.push(sequences(e));
        if (!failOnce) return { batchItemFailures: [] };
        failOnce = false;
        return { batchItemFailures: [{ itemIdentifier: '3' }, { itemIdentifier: '99' }] };
      },
    });
    expect(await poller.pollOnce()).toBe(0);
    await clock.advance(1_000);
    expect(await poller.pollOnce()).toBe(4);
    expect(seen).toEqual([[1, 2, 3, 4], [1, 2, 3, 4]]);
    expect(log.entries).toContainEqual({
      level: 'warn',
      message: 'watcher response names a record not in its batch; the batch will be retried',
      attributes: { records: 4 },
    });
  });

  it('logs each batch received and how much of it was handled at debug level (--verbose)', async () => {
    const clock = new FakeClock(0);
    const log = new RecordingLog();
    const poller = new StreamPoller({
      source: streamOf([record(1), record(2), record(3), record(4)]),
      clock,
      log,
      settings,
      handler: async () => {
        await clock.advance(25);
        return { batchItemFailures: [{ itemIdentifier: '3' }] };
      },
    });
    expect(await poller.pollOnce()).toBe(2);
    expect(log.entries).toEqual([
      { level: 'debug', message: 'watcher batch received', attributes: { records: 4, first: '1' } },
      { level: 'debug', message: 'watcher batch handled', attributes: { records: 2, retried: 2, ms: 25 } },
    ]);
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
    for (let i = 0; i < 8; i++) {
      await poller.pollOnce();
      await clock.advance(1_000);
    }
    // Halves are delivered one after the other; only the lone poison record uses up retries.
    expect(seen).toEqual([[1, 2, 3, 4], [1, 2], [1], [1], [1], [2], [3, 4]]);
    expect(discarded).toEqual(['1: retried 2 times']);
  });

  it('does not count splitting a batch as a retry, so good records around a poison one get through', async () => {
    const clock = new FakeClock(0);
    const delivered: number[] = [];
    const discarded: string[] = [];
    const poller = new StreamPoller({
      source: streamOf([record(1), record(2), record(3), record(4), record(5)]),
      clock,
      log: new RecordingLog(),
      settings: { ...settings, batchSize: 5, retryAttempts: 0 },
      onDiscard: (r, reason) => discarded.push(`${r.dynamodb!.SequenceNumber}: ${reason}`),
      handler: async (e) => {
        if (sequences(e).includes(4)) throw new Error('poison');
        delivered.push(...sequences(e));
      },
    });
    for (let i = 0; i < 10; i++) {
      await poller.pollOnce();
      await clock.advance(1_000);
    }
    expect(delivered).toEqual([1, 2, 3, 5]);
    expect(discarded).toEqual(['4: retried 0 times']);
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

  it('counts a record\'s age from when it entered the stream, in Lambda\'s and the SDK\'s shapes', async () => {
    const clock = new FakeClock(1_000_000);
    const discarded: string[] = [];
    const handled: number[] = [];
    const aged = (n: number, created: number | Date): DynamoDBRecord => ({ ...record(n), dynamodb: { SequenceNumber: String(n), ApproximateCreationDateTime: created as number } });
    const poller = new StreamPoller({
      source: streamOf([aged(1, 1_000_000 / 1000 - 61), aged(2, new Date(1_000_000 - 61_000)), aged(3, 1_000_000 / 1000 - 5)]),
      clock,
      log: new RecordingLog(),
      settings: { ...settings, maxBatchingWindowSeconds: 0 },
      onDiscard: (r, reason) => discarded.push(`${r.dynamodb!.SequenceNumber}: ${reason}`),
      handler: async (e) => void handled.push(...sequences(e)),
    });
    expect(await poller.pollOnce()).toBe(1);
    expect(discarded).toEqual(['1: older than the maximum record age', '2: older than the maximum record age']);
    expect(handled).toEqual([3]);
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

  it('hands the batch over once its window is over, while messages still trickle in, rather than once it is full', async () => {
    let now = 0;
    // A message arrives every 300 ms: each receive returns one, 300 ms after the last.
    const clock = { now: () => now, sleep: async (ms: number) => void (now += ms) };
    let sent = 0;
    const batches: { at: number; messages: number }[] = [];
    const poller = new QueuePoller({
      source: {
        receive: async () => {
          now += 300;
          return [message(`m${++sent}`)];
        },
        delete: async () => {},
      },
      clock,
      log: new RecordingLog(),
      settings: { batchSize: 100, maxBatchingWindowSeconds: 1, maxConcurrency: 1 },
      handler: async (event: SQSEvent) => {
        batches.push({ at: now, messages: event.Records.length });
        return { batchItemFailures: [] };
      },
    });
    await poller.pollOnce();
    expect(batches).toEqual([{ at: 1_200, messages: 4 }]);
  });

  it('leaves the whole batch for redelivery when the response names a message not in it, as Lambda does', async () => {
    const clock = new FakeClock(0);
    const visible = [message('a'), message('b')];
    const deleted: string[] = [];
    const log = new RecordingLog();
    const poller = new QueuePoller({
      source: { receive: async (max: number) => visible.splice(0, max), delete: async (records: SQSRecord[]) => void deleted.push(...records.map((r) => r.messageId)) },
      clock,
      log,
      settings: { batchSize: 2, maxBatchingWindowSeconds: 0, maxConcurrency: 1 },
      handler: async () => ({ batchItemFailures: [{ itemIdentifier: 'b' }, { itemIdentifier: 'not-in-batch' }] }),
    });
    expect(await poller.pollOnce()).toBe(2);
    expect(deleted).toEqual([]);
    expect(log.entries).toContainEqual({
      level: 'warn',
      message: 'executor response names a message not in its batch; its messages will be redelivered',
      attributes: { messages: 2 },
    });
  });

  it('hands the executor the messages already received when a later receive of the batch fails, rather than leaving them hidden', async () => {
    const clock = new FakeClock(0);
    const visible = [message('a'), message('b'), message('c')];
    const deleted: string[] = [];
    const handled: string[][] = [];
    const log = new RecordingLog();
    let receives = 0;
    const poller = new QueuePoller({
      source: {
        receive: async (max: number) => {
          if (++receives === 2) throw new Error('connect ECONNREFUSED 127.0.0.1:4566');
          return visible.splice(0, Math.min(max, 1));
        },
        delete: async (records: SQSRecord[]) => void deleted.push(...records.map((r) => r.messageId)),
      },
      clock,
      log,
      settings: { batchSize: 10, maxBatchingWindowSeconds: 1, maxConcurrency: 1 },
      handler: async (event: SQSEvent) => {
        handled.push(event.Records.map((r) => r.messageId));
        return { batchItemFailures: [] };
      },
    });
    expect(await poller.pollOnce()).toBe(1);
    expect(handled).toEqual([['a']]);
    expect(deleted).toEqual(['a']);
    expect(log.entries).toContainEqual({
      level: 'warn',
      message: 'executor batch receive failed; handing over the messages already received',
      attributes: { error: 'Error: connect ECONNREFUSED 127.0.0.1:4566', messages: 1 },
    });
  });

  it('lets a receive that fails before any message of the batch came in fail the poll (the loop backs off)', async () => {
    const clock = new FakeClock(0);
    let handled = 0;
    const poller = new QueuePoller({
      source: {
        receive: async () => {
          throw new Error('connect ECONNREFUSED 127.0.0.1:4566');
        },
        delete: async () => {},
      },
      clock,
      log: new RecordingLog(),
      settings: { batchSize: 10, maxBatchingWindowSeconds: 1, maxConcurrency: 1 },
      handler: async () => void handled++,
    });
    await expect(poller.pollOnce()).rejects.toThrow('ECONNREFUSED');
    expect(handled).toBe(0);
  });

  it('logs each batch received and how it was handled at debug level (--verbose)', async () => {
    const clock = new FakeClock(0);
    const visible = [message('a'), message('b')];
    const log = new RecordingLog();
    const poller = new QueuePoller({
      source: { receive: async (max: number) => visible.splice(0, max), delete: async () => {} },
      clock,
      log,
      settings: { batchSize: 2, maxBatchingWindowSeconds: 0, maxConcurrency: 1 },
      handler: async () => {
        await clock.advance(40);
        return { batchItemFailures: [{ itemIdentifier: 'b' }] };
      },
    });
    expect(await poller.pollOnce()).toBe(2);
    expect(log.entries).toEqual([
      { level: 'debug', message: 'executor batch received', attributes: { messages: 2, receives: '1,1' } },
      { level: 'debug', message: 'executor batch handled', attributes: { deleted: 1, redelivered: 1, ms: 40 } },
    ]);
  });
});

describe('a poller whose source fails (the emulator stopped)', () => {
  /** The waits the poller logged after each failed read, over `ms` of a source that refuses every read, then those once it answers again. */
  async function waitsLogged(startPoller: (source: () => Promise<never[]>, clock: FakeClock, log: RecordingLog) => { stop(): Promise<void> }) {
    const clock = new FakeClock(0);
    const log = new RecordingLog();
    let down = true;
    let reads = 0;
    const poller = startPoller(async () => {
      reads++;
      if (down) throw new Error('connect ECONNREFUSED 127.0.0.1:4566');
      return [];
    }, clock, log);
    await clock.advance(60_000);
    const whileDown = { reads, waits: log.entries.filter((e) => e.level === 'error').map((e) => e.attributes?.nextReadInMs) };
    down = false;
    await clock.advance(10_000);
    const readsBack = reads;
    await clock.advance(1_000);
    const stopped = poller.stop();
    await clock.advance(10_000);
    await stopped;
    return { ...whileDown, readsInASecondOnceBack: reads - readsBack };
  }

  const backingOff = [200, 400, 800, 1_600, 3_200, 6_400, 10_000, 10_000, 10_000, 10_000, 10_000];

  it('the queue poller waits twice as long after each read that failed in a row, up to 10 s, and reads as before once the source answers', async () => {
    const result = await waitsLogged((receive, clock, log) => {
      const poller = new QueuePoller({ source: { receive, delete: async () => {} }, clock, log, handler: async () => ({ batchItemFailures: [] }), settings: { batchSize: 10, maxBatchingWindowSeconds: 0, maxConcurrency: 1 } });
      poller.start();
      return poller;
    });
    expect(result).toEqual({ reads: backingOff.length, waits: backingOff, readsInASecondOnceBack: 5 });
  });

  it('a stop asked for during a long wait after failed reads ends the poller within its idle wait, not at the end of that wait', async () => {
    const clock = new FakeClock(0);
    const receive = async (): Promise<never[]> => {
      throw new Error('connect ECONNREFUSED 127.0.0.1:4566');
    };
    const poller = new QueuePoller({ source: { receive, delete: async () => {} }, clock, log: new RecordingLog(), handler: async () => ({ batchItemFailures: [] }), settings: { batchSize: 10, maxBatchingWindowSeconds: 0, maxConcurrency: 1 } });
    poller.start();
    await clock.advance(13_000); // the 7th failed read, at 12.6 s, waits 10 s
    let stopped = false;
    const stopping = poller.stop().then(() => (stopped = true));
    await clock.advance(200);
    expect(stopped).toBe(true);
    await stopping;
  });

  it('so does the stream poller', async () => {
    const result = await waitsLogged((read, clock, log) => {
      const poller = new StreamPoller({ source: { read }, clock, log, settings, handler: async () => ({ batchItemFailures: [] }) });
      poller.start();
      return poller;
    });
    expect(result).toEqual({ reads: backingOff.length, waits: backingOff, readsInASecondOnceBack: 5 });
  });
});

describe('QueuePoller on the memory backend', () => {
  it('redelivers a failed message after the visibility timeout and dead-letters it after the maximum receives', async () => {
    const clock = new FakeClock(0);
    const backend = createMemoryBackend({ clock, ownerTagValue: 'test', visibilityTimeoutMs: 30_000 });
    const receiveCounts: string[] = [];
    const poller = new QueuePoller({
      source: backend.messages,
      clock,
      log: new RecordingLog(),
      settings: { batchSize: 10, maxBatchingWindowSeconds: 0, maxConcurrency: 1 },
      handler: async (event: SQSEvent) => {
        receiveCounts.push(...event.Records.map((r) => r.attributes.ApproximateReceiveCount));
        return { batchItemFailures: event.Records.map((r) => ({ itemIdentifier: r.messageId })) };
      },
    });
    await backend.queue.send([{ message: { op: 'check-volume', key: { kind: 'volume', volumeId: 'v1' } }, delaySeconds: 0 }]);

    expect(await poller.pollOnce()).toBe(1);
    expect(await poller.pollOnce()).toBe(0); // hidden for the visibility timeout
    await clock.advance(29_000);
    expect(await poller.pollOnce()).toBe(0);
    for (let i = 0; i < QUEUE.maxReceiveCount; i++) {
      await clock.advance(30_000);
      await poller.pollOnce();
    }
    expect(receiveCounts).toEqual(Array.from({ length: QUEUE.maxReceiveCount }, (_, i) => String(i + 1)));
    expect(backend.queue.deadLetters().map((d) => d.message.key)).toEqual([{ kind: 'volume', volumeId: 'v1' }]);
  });

  it('deletes a message the handler did not report as failed', async () => {
    const clock = new FakeClock(0);
    const backend = createMemoryBackend({ clock, ownerTagValue: 'test', visibilityTimeoutMs: 30_000 });
    let calls = 0;
    const poller = new QueuePoller({
      source: backend.messages,
      clock,
      log: new RecordingLog(),
      settings: { batchSize: 10, maxBatchingWindowSeconds: 0, maxConcurrency: 1 },
      handler: async () => void calls++,
    });
    await backend.queue.send([{ message: { op: 'check-volume', key: { kind: 'volume', volumeId: 'v1' } }, delaySeconds: 0 }]);
    expect(await poller.pollOnce()).toBe(1);
    await clock.advance(60_000);
    expect(await poller.pollOnce()).toBe(0);
    expect(calls).toBe(1);
    expect(backend.queue.deadLetters()).toEqual([]);
  });
});

describe('the memory backend', () => {
  it("creates volumes in the local region's availability zones and refuses a zone it does not have, as EC2 does", async () => {
    const backend = createMemoryBackend({ clock: new FakeClock(0), ownerTagValue: 'test' });
    const request = (clientToken: string, availabilityZone: string) => ({ clientToken, availabilityZone, spec: { sizeGiB: 8, volumeType: 'gp3' as const }, tags: {} });
    expect(LOCAL_AVAILABILITY_ZONES).toContain(LOCAL_AVAILABILITY_ZONE);
    expect((await backend.ebs.createVolume(request('a', 'us-east-1b'))).availabilityZone).toBe('us-east-1b');
    await expect(backend.ebs.createVolume(request('b', 'zz-nowhere-9z'))).rejects.toMatchObject({ code: 'InvalidZone.NotFound' });
  });
});

describe("the moto backend's stream source", () => {
  it('takes up again after the last record read when its shard iterator expired, instead of failing every read', async () => {
    const streamArn = 'arn:aws:dynamodb:us-east-1:000000000000:table/t/stream/1';
    const asked: string[] = [];
    let expired = false;
    const streams = {
      send: async (command: unknown) => {
        if (command instanceof DescribeStreamCommand) return { StreamDescription: { Shards: [{ ShardId: 's1' }] } };
        if (command instanceof GetShardIteratorCommand) {
          const { ShardIteratorType, SequenceNumber } = command.input;
          asked.push(`${ShardIteratorType}${SequenceNumber ? ` ${SequenceNumber}` : ''}`);
          return { ShardIterator: SequenceNumber ? `after-${SequenceNumber}` : 'start' };
        }
        if (command instanceof GetRecordsCommand) {
          const { ShardIterator } = command.input;
          const at = (n: number) => ({ eventName: 'INSERT', dynamodb: { SequenceNumber: String(n), ApproximateCreationDateTime: new Date(n * 1000) } });
          if (ShardIterator === 'start') return { Records: [at(1), at(2)], NextShardIterator: 'next' };
          // An emulator's iterator unused for minutes (the machine slept) has expired.
          if (ShardIterator === 'next' && !expired) {
            expired = true;
            throw new ExpiredIteratorException({ message: 'Iterator expired', $metadata: {} });
          }
          if (ShardIterator === 'after-2') return { Records: [at(3)], NextShardIterator: 'after-3' };
          return { Records: [], NextShardIterator: ShardIterator };
        }
        throw new Error(`unexpected ${String(command)}`);
      },
    };
    const source = dynamoStreamSource({ streams } as unknown as Parameters<typeof dynamoStreamSource>[0], streamArn);
    const read = async () => (await source.read()).map((r) => Number(r.dynamodb!.SequenceNumber));
    expect(await read()).toEqual([1, 2]);
    expect(await read()).toEqual([]);
    expect(await read()).toEqual([3]);
    expect(await read()).toEqual([]);
    expect(asked).toEqual(['TRIM_HORIZON', 'AFTER_SEQUENCE_NUMBER 2']);
  });

  it("keeps the records a shard gave when another shard's read then fails, and returns them first at the next read", async () => {
    let failures = 1;
    const streams = {
      send: async (command: unknown) => {
        if (command instanceof DescribeStreamCommand) return { StreamDescription: { Shards: [{ ShardId: 'parent' }, { ShardId: 'child' }] } };
        if (command instanceof GetShardIteratorCommand) return { ShardIterator: `${command.input.ShardId}-0` };
        if (command instanceof GetRecordsCommand) {
          const at = (n: number) => ({ eventName: 'INSERT', dynamodb: { SequenceNumber: String(n) } });
          switch (command.input.ShardIterator) {
            case 'parent-0':
              return { Records: [at(1)], NextShardIterator: 'parent-1' };
            case 'child-0':
              if (failures-- > 0) throw new Error('connection reset');
              return { Records: [at(2)], NextShardIterator: 'child-1' };
            default:
              return { Records: [], NextShardIterator: command.input.ShardIterator };
          }
        }
        throw new Error(`unexpected ${String(command)}`);
      },
    };
    const source = dynamoStreamSource({ streams } as unknown as Parameters<typeof dynamoStreamSource>[0], 'arn:aws:dynamodb:us-east-1:000000000000:table/t/stream/1');
    await expect(source.read()).rejects.toThrow('connection reset');
    expect((await source.read()).map((r) => Number(r.dynamodb!.SequenceNumber))).toEqual([1, 2]);
    expect(await source.read()).toEqual([]);
  });

  it.each([
    ['parent first', ['parent', 'child']],
    ['child first', ['child', 'parent']],
  ])("reads a split shard's children only once the parent is read to its end (%s)", async (_, order) => {
    const listed = { parent: { ShardId: 'parent' }, child: { ShardId: 'child', ParentShardId: 'parent' } };
    const at = (n: number) => ({ eventName: 'INSERT', dynamodb: { SequenceNumber: String(n) } });
    const streams = {
      send: async (command: unknown) => {
        if (command instanceof DescribeStreamCommand) return { StreamDescription: { Shards: order.map((id) => listed[id as keyof typeof listed]) } };
        if (command instanceof GetShardIteratorCommand) return { ShardIterator: `${command.input.ShardId}-0` };
        if (command instanceof GetRecordsCommand) {
          switch (command.input.ShardIterator) {
            case 'parent-0':
              return { Records: [at(1)], NextShardIterator: 'parent-1' };
            // The parent's last records, written before the split closed it; no next iterator: closed.
            case 'parent-1':
              return { Records: [at(2)] };
            case 'child-0':
              return { Records: [at(3)], NextShardIterator: 'child-1' };
            default:
              return { Records: [], NextShardIterator: command.input.ShardIterator };
          }
        }
        throw new Error(`unexpected ${String(command)}`);
      },
    };
    const source = dynamoStreamSource({ streams } as unknown as Parameters<typeof dynamoStreamSource>[0], 'arn:aws:dynamodb:us-east-1:000000000000:table/t/stream/1');
    const read = async () => (await source.read()).map((r) => Number(r.dynamodb!.SequenceNumber));
    const seen = [...(await read()), ...(await read()), ...(await read()), ...(await read())];
    expect(seen).toEqual([1, 2, 3]);
  });

  it('reads the shards DescribeStream lists past its first page', async () => {
    const at = (n: number) => ({ eventName: 'INSERT', dynamodb: { SequenceNumber: String(n) } });
    const streams = {
      send: async (command: unknown) => {
        if (command instanceof DescribeStreamCommand) {
          // At most 100 shards a call: the rest after LastEvaluatedShardId.
          return command.input.ExclusiveStartShardId === 'first'
            ? { StreamDescription: { Shards: [{ ShardId: 'second' }] } }
            : { StreamDescription: { Shards: [{ ShardId: 'first' }], LastEvaluatedShardId: 'first' } };
        }
        if (command instanceof GetShardIteratorCommand) return { ShardIterator: `${command.input.ShardId}-0` };
        if (command instanceof GetRecordsCommand) {
          switch (command.input.ShardIterator) {
            case 'first-0':
              return { Records: [at(1)], NextShardIterator: 'first-1' };
            case 'second-0':
              return { Records: [at(2)], NextShardIterator: 'second-1' };
            default:
              return { Records: [], NextShardIterator: command.input.ShardIterator };
          }
        }
        throw new Error(`unexpected ${String(command)}`);
      },
    };
    const source = dynamoStreamSource({ streams } as unknown as Parameters<typeof dynamoStreamSource>[0], 'arn:aws:dynamodb:us-east-1:000000000000:table/t/stream/1');
    expect((await source.read()).map((r) => Number(r.dynamodb!.SequenceNumber))).toEqual([1, 2]);
  });

  it("reads a split shard's children once the parent is no longer listed (trimmed away before it was read to its end)", async () => {
    const at = (n: number) => ({ eventName: 'INSERT', dynamodb: { SequenceNumber: String(n) } });
    let parentListed = true;
    const streams = {
      send: async (command: unknown) => {
        if (command instanceof DescribeStreamCommand) {
          const child = { ShardId: 'child', ParentShardId: 'parent' };
          return { StreamDescription: { Shards: parentListed ? [{ ShardId: 'parent' }, child] : [child] } };
        }
        if (command instanceof GetShardIteratorCommand) return { ShardIterator: `${command.input.ShardId}-0` };
        if (command instanceof GetRecordsCommand) {
          switch (command.input.ShardIterator) {
            case 'parent-0':
              return { Records: [at(1)], NextShardIterator: 'parent-1' };
            case 'child-0':
              return { Records: [at(2)], NextShardIterator: 'child-1' };
            default:
              return { Records: [], NextShardIterator: command.input.ShardIterator };
          }
        }
        throw new Error(`unexpected ${String(command)}`);
      },
    };
    const source = dynamoStreamSource({ streams } as unknown as Parameters<typeof dynamoStreamSource>[0], 'arn:aws:dynamodb:us-east-1:000000000000:table/t/stream/1');
    const read = async () => (await source.read()).map((r) => Number(r.dynamodb!.SequenceNumber));
    expect(await read()).toEqual([1]);
    expect(await read()).toEqual([]);
    parentListed = false;
    expect(await read()).toEqual([2]);
  });

  it('takes up again at the oldest record left when the records after its position were trimmed, instead of failing every read', async () => {
    const at = (n: number) => ({ eventName: 'INSERT', dynamodb: { SequenceNumber: String(n) } });
    const asked: string[] = [];
    const streams = {
      send: async (command: unknown) => {
        if (command instanceof DescribeStreamCommand) return { StreamDescription: { Shards: [{ ShardId: 's1' }] } };
        if (command instanceof GetShardIteratorCommand) {
          const { ShardIteratorType, SequenceNumber } = command.input;
          asked.push(`${ShardIteratorType}${SequenceNumber ? ` ${SequenceNumber}` : ''}`);
          // Record 2 and those before it are older than the stream keeps: gone.
          if (SequenceNumber === '2') throw new TrimmedDataAccessException({ message: 'trimmed', $metadata: {} });
          return { ShardIterator: asked.length === 1 ? 'start' : 'oldest-left' };
        }
        if (command instanceof GetRecordsCommand) {
          switch (command.input.ShardIterator) {
            case 'start':
              return { Records: [at(1), at(2)], NextShardIterator: 'slept' };
            // Unused while the machine slept for days: expired.
            case 'slept':
              throw new ExpiredIteratorException({ message: 'Iterator expired', $metadata: {} });
            case 'oldest-left':
              return { Records: [at(5)], NextShardIterator: 'stale' };
            // Its records trimmed before it was used.
            case 'stale':
              throw new TrimmedDataAccessException({ message: 'trimmed', $metadata: {} });
            default:
              return { Records: [], NextShardIterator: command.input.ShardIterator };
          }
        }
        throw new Error(`unexpected ${String(command)}`);
      },
    };
    const source = dynamoStreamSource({ streams } as unknown as Parameters<typeof dynamoStreamSource>[0], 'arn:aws:dynamodb:us-east-1:000000000000:table/t/stream/1');
    const read = async () => (await source.read()).map((r) => Number(r.dynamodb!.SequenceNumber));
    expect(await read()).toEqual([1, 2]);
    expect(await read()).toEqual([]);
    expect(await read()).toEqual([5]);
    expect(await read()).toEqual([]);
    expect(asked).toEqual(['TRIM_HORIZON', 'AFTER_SEQUENCE_NUMBER 2', 'TRIM_HORIZON', 'TRIM_HORIZON']);
  });

  it('says what to do when the endpoint no longer holds the stream or the queue (an emulator restarted without its state)', async () => {
    const streams = {
      send: async () => {
        throw new ResourceNotFoundException({ message: 'Requested resource not found', $metadata: {} });
      },
    };
    const sqs = {
      send: async () => {
        throw new QueueDoesNotExist({ message: 'The specified queue does not exist.', $metadata: {} });
      },
    };
    const stream = dynamoStreamSource({ streams } as unknown as Parameters<typeof dynamoStreamSource>[0], 'arn:aws:dynamodb:us-east-1:000000000000:table/t/stream/1');
    await expect(stream.read()).rejects.toThrow(
      "the table's stream arn:aws:dynamodb:us-east-1:000000000000:table/t/stream/1 is not at the endpoint (ResourceNotFoundException: Requested resource not found); an emulator restarted without its state has lost it: restart the runtime to create it again",
    );
    const messages = sqsQueueSource({ sqs } as unknown as Parameters<typeof sqsQueueSource>[0], 'http://127.0.0.1:5000/123456789012/q');
    await expect(messages.receive(10)).rejects.toThrow(
      'the operation queue http://127.0.0.1:5000/123456789012/q is not at the endpoint (QueueDoesNotExist: The specified queue does not exist.); an emulator restarted without its state has lost it: restart the runtime to create it again',
    );
    // Any other failure is passed on as it is.
    const other = new Error('connect ECONNREFUSED 127.0.0.1:5000');
    expect(lostWithEmulatorState(other, 'the operation queue')).toBe(other);
  });
});
