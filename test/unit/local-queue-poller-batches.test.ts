import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { QueuePoller } from '../../lib/local/queue-poller.js';
import { EXECUTOR } from '../../lib/settings.js';
import { FakeClock, RecordingLog } from '../../lib/memory/index.js';

const message = (id: string): SQSRecord => ({ messageId: id, receiptHandle: `r-${id}`, body: '{}' }) as SQSRecord;

/** A queue of `visible` messages (more can be pushed) that returns at most `perReceive` a receive and notes each receive's maximum. */
function queueOf(visible: SQSRecord[], perReceive = 10) {
  const asked: number[] = [];
  return {
    asked,
    visible,
    source: {
      receive: async (max: number) => {
        asked.push(max);
        return visible.splice(0, Math.min(max, perReceive));
      },
      delete: async () => {},
    },
  };
}

/** A poller over `queue` with the given batching settings (one invocation at a time), noting the clock's time at each batch handed over. */
function timedPoller(queue: ReturnType<typeof queueOf>, batching: { batchSize: number; maxBatchingWindowSeconds: number }) {
  const clock = new FakeClock(0);
  const handedAt: number[] = [];
  const poller = new QueuePoller({
    source: queue.source,
    clock,
    log: new RecordingLog(),
    settings: { ...batching, maxConcurrency: 1 },
    handler: async () => void handedAt.push(clock.now()),
  });
  return { clock, handedAt, poller };
}

describe('QueuePoller batches', () => {
  it('never gathers more than batchSize messages, however many each receive returns', async () => {
    const clock = new FakeClock(0);
    const queue = queueOf(Array.from({ length: 7 }, (_, i) => message(`m${i}`)), 2);
    const batches: number[] = [];
    const poller = new QueuePoller({
      source: queue.source,
      clock,
      log: new RecordingLog(),
      settings: { batchSize: 3, maxBatchingWindowSeconds: 1, maxConcurrency: 1 },
      handler: async (event: SQSEvent) => void batches.push(event.Records.length),
    });
    expect(await poller.pollOnce()).toBe(3);
    expect(await poller.pollOnce()).toBe(3);
    expect(batches).toEqual([3, 3]);
  });

  it('asks SQS for at most 10 messages a receive (ReceiveMessage\'s MaxNumberOfMessages), also for a larger batch', async () => {
    const clock = new FakeClock(0);
    const queue = queueOf(Array.from({ length: 25 }, (_, i) => message(`m${i}`)));
    const poller = new QueuePoller({
      source: queue.source,
      clock,
      log: new RecordingLog(),
      settings: { batchSize: 25, maxBatchingWindowSeconds: 1, maxConcurrency: 1 },
      handler: async () => ({ batchItemFailures: [] }),
    });
    expect(await poller.pollOnce()).toBe(25);
    expect(queue.asked).toEqual([10, 10, 5]);
  });

  it('hands a batch over as soon as it is full, without waiting out the batching window', async () => {
    const queue = queueOf([message('a'), message('b')]);
    const { clock, handedAt, poller } = timedPoller(queue, { batchSize: 2, maxBatchingWindowSeconds: 5 });
    const polled = poller.pollOnce();
    await clock.advance(10_000);
    expect(await polled).toBe(2);
    expect(handedAt).toEqual([0]);
  });

  it('hands a batch over once it fills while the window is still open, not at the window\'s end', async () => {
    const queue = queueOf([message('a')]);
    const { clock, handedAt, poller } = timedPoller(queue, { batchSize: 2, maxBatchingWindowSeconds: 5 });
    const polled = poller.pollOnce();
    await clock.advance(1_000);
    queue.visible.push(message('b'));
    await clock.advance(10_000);
    expect(await polled).toBe(2);
    expect(handedAt).toHaveLength(1);
    expect(handedAt[0]).toBeGreaterThanOrEqual(1_000);
    expect(handedAt[0]).toBeLessThan(5_000);
  });

  it('gathers for at most the batching window when nothing more comes in', async () => {
    const queue = queueOf([message('a')]);
    const { clock, handedAt, poller } = timedPoller(queue, { batchSize: 10, maxBatchingWindowSeconds: 0.25 });
    const polled = poller.pollOnce();
    await clock.advance(10_000);
    expect(await polled).toBe(1);
    expect(handedAt).toEqual([250]);
  });

  it('uses the deployed executor mapping\'s settings (lib/settings.ts) when given none', async () => {
    const clock = new FakeClock(0);
    const queue = queueOf(Array.from({ length: EXECUTOR.batchSize + 5 }, (_, i) => message(`m${i}`)));
    const batches: number[] = [];
    const poller = new QueuePoller({ source: queue.source, clock, log: new RecordingLog(), handler: async (event: SQSEvent) => void batches.push(event.Records.length) });
    expect(await poller.pollOnce()).toBe(EXECUTOR.batchSize);
    expect(batches).toEqual([EXECUTOR.batchSize]);
  });

  it('reads an empty queue once per idle wait in each worker, within a batching window too', async () => {
    const clock = new FakeClock(0);
    const queue = queueOf([]);
    const poller = new QueuePoller({ source: queue.source, clock, log: new RecordingLog(), idleMs: 200, settings: { batchSize: 10, maxBatchingWindowSeconds: 1, maxConcurrency: 1 }, handler: async () => ({ batchItemFailures: [] }) });
    poller.start();
    await clock.advance(999);
    const stopped = poller.stop();
    await clock.advance(200);
    await stopped;
    // Reads at 0, 200, 400, 600 and 800 ms.
    expect(queue.asked).toHaveLength(5);
  });
});
