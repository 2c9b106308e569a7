/**
 * The simulated queue (`bench/sim/sqs.ts`) counts a message outstanding from its send until it is
 * deleted or dead-lettered: one that fails on every receive goes to the dead-letter queue after
 * `maxReceiveCount` receives, and is then no longer outstanding.
 */
import { describe, expect, it } from 'vitest';
import { EventLoop } from '../../bench/sim/event-loop.js';
import { SimulatedFunction } from '../../bench/sim/lambda.js';
import { Lognormal } from '../../bench/sim/latency.js';
import { Random } from '../../bench/sim/random.js';
import { SimulatedQueue } from '../../bench/sim/sqs.js';
import type { QueuedOperation } from '../../lib/engine/ports.js';

const T0 = Date.UTC(2026, 0, 1);

describe('the simulated queue dead-lettering a message', () => {
  it('takes a message that failed its last receive off the outstanding count when it goes to the dead-letter queue', async () => {
    const loop = new EventLoop(T0);
    const fn = new SimulatedFunction(loop, 'executor', 1024, 5, 900_000);
    const settings = { batchSize: 10, maxBatchingWindowSeconds: 0, visibilityTimeoutSeconds: 30, maxReceiveCount: 2, duplicateRate: 0, idlePollers: 5 };
    const queue = new SimulatedQueue(loop, new Random(3), settings, new Lognormal(10, 10), fn, async (batch) => ({
      failedMessageIds: batch.filter((delivery) => (delivery.message.key as { volumeId: string }).volumeId === 'v-bad').map((delivery) => delivery.messageId),
    }));
    const operations: QueuedOperation[] = ['v-bad', 'v-good'].map((volumeId) => ({ message: { op: 'create-volume', key: { kind: 'volume', volumeId } }, delaySeconds: 0 }));
    void queue.send(operations);
    await loop.run({ untilMs: T0 + 30_000 });
    // Received once and failed: v-good deleted, v-bad invisible until 30.01 s.
    expect([queue.outstanding, queue.deadLettered]).toEqual([1, 0]);
    await loop.run({ untilMs: T0 + 3_600_000 });
    expect([queue.deliveries, queue.deadLettered, queue.outstanding]).toEqual([3, 1, 0]);
  });
});
