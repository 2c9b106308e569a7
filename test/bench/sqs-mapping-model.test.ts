import { describe, expect, it } from 'vitest';
import { EventLoop } from '../../bench/sim/event-loop.js';
import { SimulatedFunction } from '../../bench/sim/lambda.js';
import { Lognormal } from '../../bench/sim/latency.js';
import { Random } from '../../bench/sim/random.js';
import { SimulatedQueue, type Delivery, type QueueMappingSettings } from '../../bench/sim/sqs.js';
import type { OperationMessage, QueuedOperation } from '../../lib/engine/ports.js';

const T0 = Date.UTC(2026, 0, 1);
/** A fixed 10 ms round trip, so times can be stated exactly. */
const ROUND_TRIP = new Lognormal(10, 10);
const BASE: QueueMappingSettings = { batchSize: 10, maxBatchingWindowSeconds: 0, visibilityTimeoutSeconds: 30, maxReceiveCount: 3, duplicateRate: 0, idlePollers: 5 };
const SAFETY = { untilMs: T0 + 3_600_000 };

function operation(volumeId: string, delaySeconds = 0): QueuedOperation {
  const message: OperationMessage = { op: 'create-volume', key: { kind: 'volume', volumeId } };
  return { message, delaySeconds };
}

interface Received {
  at: number;
  volumeId: string;
  receiveCount: number;
}

function setUp(
  settings: Partial<QueueMappingSettings> = {},
  options: { concurrency?: number; handler?: (batch: Delivery[], loop: EventLoop) => Promise<{ failedMessageIds: string[] }> } = {},
) {
  const loop = new EventLoop(T0);
  const fn = new SimulatedFunction(loop, 'executor', 1024, options.concurrency ?? 5, 900_000);
  const received: Received[] = [];
  const batches: number[] = [];
  const queue = new SimulatedQueue(loop, new Random(11), { ...BASE, ...settings }, ROUND_TRIP, fn, async (batch) => {
    batches.push(batch.length);
    for (const delivery of batch) {
      const key = delivery.message.key as { volumeId: string };
      received.push({ at: loop.now() - T0, volumeId: key.volumeId, receiveCount: delivery.receiveCount });
    }
    return options.handler ? options.handler(batch, loop) : { failedMessageIds: [] };
  });
  return { loop, fn, queue, received, batches };
}

describe('the simulated queue and its event source mapping', () => {
  it('bills 10 messages per SendMessageBatch, ReceiveMessage and DeleteMessageBatch, and counts what it sent and delivered', async () => {
    const { loop, queue, received, batches } = setUp({ batchSize: 25, maxBatchingWindowSeconds: 1 });
    await Promise.all([queue.send(Array.from({ length: 25 }, (_, i) => operation(`v-${i}`))), loop.run(SAFETY)]);
    await loop.run(SAFETY);
    expect(batches).toEqual([25]);
    expect(received).toHaveLength(25);
    expect([queue.sendRequests, queue.receiveRequests, queue.deleteRequests]).toEqual([3, 3, 3]);
    expect([queue.messagesSent, queue.deliveries, queue.outstanding]).toEqual([25, 25, 0]);
  });

  it('sends nothing, bills nothing and takes no time for an empty list', async () => {
    const { loop, queue } = setUp();
    await Promise.all([queue.send([]), loop.run(SAFETY)]);
    expect(loop.now()).toBe(T0);
    expect(queue.sendRequests).toBe(0);
  });

  it('takes DelaySeconds of 0 to 900 and refuses others, naming the field and sending nothing', async () => {
    const { loop, queue, received } = setUp();
    for (const delaySeconds of [-1, 901, 1.5, Number.NaN]) {
      await expect(queue.send([operation('v-1'), operation('v-2', delaySeconds)])).rejects.toThrow(/delaySeconds/);
    }
    expect([queue.sendRequests, queue.messagesSent, queue.outstanding]).toEqual([0, 0, 0]);
    await Promise.all([queue.send([operation('v-late', 900)]), loop.run(SAFETY)]);
    await loop.run(SAFETY);
    expect(received).toEqual([{ at: 10 + 900_000, volumeId: 'v-late', receiveCount: 1 }]);
  });

  it('invokes at once with a full batch, and otherwise at the end of the window opened by the first message waiting', async () => {
    const { loop, queue, received, batches } = setUp({ batchSize: 3, maxBatchingWindowSeconds: 2 });
    void queue.send([operation('v-1'), operation('v-2'), operation('v-3')]);
    loop.after(5_000, () => void queue.send([operation('v-4')]));
    loop.after(6_000, () => void queue.send([operation('v-5')]));
    await loop.run(SAFETY);
    expect(batches).toEqual([3, 2]);
    expect(received.map((r) => [r.volumeId, r.at])).toEqual([
      ['v-1', 10],
      ['v-2', 10],
      ['v-3', 10],
      ['v-4', 7_010],
      ['v-5', 7_010],
    ]);
  });

  it('opens a new window for the messages a full batch left behind, and delivers them when it ends', async () => {
    const { loop, queue, batches, received } = setUp({ batchSize: 10, maxBatchingWindowSeconds: 2 });
    void queue.send(Array.from({ length: 15 }, (_, i) => operation(`v-${i}`)));
    await loop.run(SAFETY);
    expect(batches).toEqual([10, 5]);
    expect(received.at(-1)!.at).toBe(2_010);
  });

  it('gives messages that waited past the window for a free invocation to the next one that frees', async () => {
    const { loop, queue, batches, received } = setUp(
      { batchSize: 10, maxBatchingWindowSeconds: 2 },
      {
        concurrency: 1,
        handler: async (_batch, l) => {
          await l.clock.sleep(5_000);
          return { failedMessageIds: [] };
        },
      },
    );
    void queue.send(Array.from({ length: 25 }, (_, i) => operation(`v-${i}`)));
    await loop.run(SAFETY);
    expect(batches).toEqual([10, 10, 5]);
    expect([...new Set(received.map((r) => r.at))]).toEqual([10, 5_010, 10_010]);
  });

  it('delivers messages left waiting for a free invocation as soon as one ends', async () => {
    const { loop, queue, received } = setUp(
      { batchSize: 1 },
      {
        concurrency: 1,
        handler: async (_batch, l) => {
          await l.clock.sleep(1_000);
          return { failedMessageIds: [] };
        },
      },
    );
    void queue.send([operation('v-1'), operation('v-2')]);
    await loop.run(SAFETY);
    expect(received.map((r) => r.at)).toEqual([10, 1_010]);
  });

  it('takes every message of an invocation that throws as failed: each comes back after the visibility timeout (then waits out a window) and stays outstanding until done', async () => {
    let calls = 0;
    const { loop, queue, received } = setUp(
      { maxBatchingWindowSeconds: 1 },
      {
        handler: async () => {
          if (calls++ === 0) throw new Error('boom');
          return { failedMessageIds: [] };
        },
      },
    );
    void queue.send([operation('v-1'), operation('v-2')]);
    await loop.run({ untilMs: T0 + 2_000 });
    expect(queue.outstanding).toBe(2);
    expect(queue.deleteRequests).toBe(0);
    await loop.run(SAFETY);
    expect(received.map((r) => [r.volumeId, r.at, r.receiveCount])).toEqual([
      ['v-1', 1_010, 1],
      ['v-2', 1_010, 1],
      ['v-1', 32_010, 2],
      ['v-2', 32_010, 2],
    ]);
    expect([queue.outstanding, queue.deadLettered, queue.deleteRequests]).toEqual([0, 0, 1]);
  });

  it('refuses a duplicate rate of 1 or more, naming it', () => {
    const loop = new EventLoop(T0);
    const fn = new SimulatedFunction(loop, 'executor', 1024, 5);
    const handler = async () => ({ failedMessageIds: [] });
    expect(() => new SimulatedQueue(loop, new Random(1), { ...BASE, duplicateRate: 1 }, ROUND_TRIP, fn, handler)).toThrow(/duplicateRate/);
    expect(() => new SimulatedQueue(loop, new Random(1), { ...BASE, duplicateRate: 0.99 }, ROUND_TRIP, fn, handler)).not.toThrow();
  });

  it('delivers a duplicated message once more within 10 s of the receive it copies, and counts the copy outstanding until it is deleted', async () => {
    const { loop, queue, received } = setUp({ duplicateRate: 0.5, batchSize: 1 }, { concurrency: 1000 });
    void queue.send(Array.from({ length: 200 }, (_, i) => operation(`v-${i}`)));
    await loop.run(SAFETY);
    expect(queue.duplicatesDelivered).toBeGreaterThan(60);
    expect(received).toHaveLength(200 + queue.duplicatesDelivered);
    const previous = new Map<string, number>();
    const gaps: number[] = [];
    for (const r of received) {
      const before = previous.get(r.volumeId);
      if (before !== undefined) gaps.push(r.at - before);
      previous.set(r.volumeId, r.at);
    }
    expect(gaps.length).toBeGreaterThan(0);
    expect(Math.max(...gaps)).toBeLessThan(10_000);
    expect(queue.outstanding).toBe(0);
  });

  it('bills one empty receive per started 20 s of each poller not waiting on an invocation', async () => {
    const idle = setUp({ idlePollers: 1 });
    await idle.loop.run({ untilMs: T0 + 30_000 });
    idle.loop.at(T0 + 30_000, () => undefined);
    await idle.loop.run();
    expect(idle.loop.now()).toBe(T0 + 30_000);
    expect(idle.queue.requests()).toBe(2);

    // Five pollers; one waits on a 40 s invocation of a message made visible at 30.01 s.
    const busy = setUp(
      {},
      {
        handler: async (_batch, l) => {
          await l.clock.sleep(40_000);
          return { failedMessageIds: [] };
        },
      },
    );
    void busy.queue.send([operation('v-1', 30)]);
    await busy.loop.run(SAFETY);
    expect(busy.loop.now()).toBe(T0 + 70_010);
    // 30 010 ms × 5 pollers + 40 000 ms × 4 = 310 050 poller-ms: 16 receives, with the batch's 3 requests.
    expect(busy.queue.requests()).toBe(3 + 16);
  });
});
