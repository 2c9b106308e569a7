/**
 * The simulated queue (`bench/sim/sqs.ts`) delivers a share `duplicateRate` of its deliveries
 * once more. A share of 0 is none at all, whatever the random source draws, a draw of 0 included
 * (a draw is uniform in [0, 1)).
 */
import { describe, expect, it } from 'vitest';
import { EventLoop } from '../../bench/sim/event-loop.js';
import { SimulatedFunction } from '../../bench/sim/lambda.js';
import type { Lognormal } from '../../bench/sim/latency.js';
import { SimulatedQueue } from '../../bench/sim/sqs.js';
import type { QueuedOperation } from '../../lib/engine/ports.js';
import { FixedRandom } from './fixed-random.js';

const T0 = Date.UTC(2026, 0, 1);
/** A fixed 10 ms round trip that draws nothing from the random source. */
const ROUND_TRIP = { sample: () => 10 } as unknown as Lognormal;

describe('the simulated queue with a duplicate rate of 0', () => {
  it('delivers every message once, even when every draw is 0', async () => {
    const loop = new EventLoop(T0);
    const fn = new SimulatedFunction(loop, 'executor', 1024, 5, 900_000);
    const received: string[] = [];
    const settings = { batchSize: 10, maxBatchingWindowSeconds: 0, visibilityTimeoutSeconds: 30, maxReceiveCount: 3, duplicateRate: 0, idlePollers: 5 };
    const queue = new SimulatedQueue(loop, new FixedRandom(0), settings, ROUND_TRIP, fn, async (batch) => {
      for (const delivery of batch) received.push((delivery.message.key as { volumeId: string }).volumeId);
      return { failedMessageIds: [] };
    });
    const operations: QueuedOperation[] = ['v-1', 'v-2', 'v-3'].map((volumeId) => ({ message: { op: 'create-volume', key: { kind: 'volume', volumeId } }, delaySeconds: 0 }));
    void queue.send(operations);
    await loop.run({ untilMs: T0 + 3_600_000 });
    expect(received).toEqual(['v-1', 'v-2', 'v-3']);
    expect([queue.deliveries, queue.duplicatesDelivered, queue.outstanding]).toEqual([3, 0, 0]);
  });
});
