/**
 * The simulated queue's event source mapping (`bench/sim/sqs.ts`) gathers up to `batchSize`
 * messages for at most the batching window. Messages a full batch leaves behind wait out a window
 * of their own, opened when that batch was taken, not the rest of the window the batch's first
 * message opened.
 */
import { describe, expect, it } from 'vitest';
import { EventLoop } from '../../bench/sim/event-loop.js';
import { SimulatedFunction } from '../../bench/sim/lambda.js';
import { Lognormal } from '../../bench/sim/latency.js';
import { Random } from '../../bench/sim/random.js';
import { SimulatedQueue } from '../../bench/sim/sqs.js';
import type { QueuedOperation } from '../../lib/engine/ports.js';

const T0 = Date.UTC(2026, 0, 1);
/** A fixed 10 ms round trip, so times can be stated exactly. */
const ROUND_TRIP = new Lognormal(10, 10);

function operations(from: number, count: number): QueuedOperation[] {
  return Array.from({ length: count }, (_, i) => ({ message: { op: 'create-volume', key: { kind: 'volume', volumeId: `v-${from + i}` } }, delaySeconds: 0 }));
}

describe('the simulated queue mapping after a full batch', () => {
  it('gives the messages a full batch left behind a batching window from the moment that batch was taken', async () => {
    const loop = new EventLoop(T0);
    const fn = new SimulatedFunction(loop, 'executor', 1024, 2, 900_000);
    const batches: Array<{ at: number; size: number }> = [];
    const settings = { batchSize: 10, maxBatchingWindowSeconds: 2, visibilityTimeoutSeconds: 30, maxReceiveCount: 3, duplicateRate: 0, idlePollers: 5 };
    const queue = new SimulatedQueue(loop, new Random(11), settings, ROUND_TRIP, fn, async (batch) => {
      batches.push({ at: loop.now() - T0, size: batch.length });
      // The first two invocations hold both slots for 5 s.
      if (batches.length <= 2) await loop.clock.sleep(5_000);
      return { failedMessageIds: [] };
    });
    void queue.send(operations(0, 20));
    // 15 more, visible at 1 010 ms, wait for a slot; their window, opened then, has ended when one frees.
    loop.after(1_000, () => void queue.send(operations(20, 15)));
    await loop.run({ untilMs: T0 + 3_600_000 });
    // At 5 010 ms a full batch goes; the 5 it leaves wait out a window of 2 s from then.
    expect(batches).toEqual([
      { at: 10, size: 10 },
      { at: 10, size: 10 },
      { at: 5_010, size: 10 },
      { at: 7_010, size: 5 },
    ]);
  });
});
