/**
 * The simulated stream mapping (`bench/sim/stream.ts`) hands each batch to its function, which
 * spends its CPU time on every record before the handler's waits begin (`bench/sim/lambda.ts`);
 * a batch whose invocation fails with an error is handed again whole, as Lambda reprocesses a
 * stream batch after a function error, 1 s later as after any failure.
 */
import { describe, expect, it } from 'vitest';
import { EventLoop } from '../../bench/sim/event-loop.js';
import { MIB_PER_VCPU, SimulatedFunction } from '../../bench/sim/lambda.js';
import type { Lognormal } from '../../bench/sim/latency.js';
import { Random } from '../../bench/sim/random.js';
import { StreamSimulator } from '../../bench/sim/stream.js';

const T0 = Date.UTC(2026, 0, 1);
/** Every change readable 100 ms after it is published. */
const PROPAGATION = { sample: () => 100 } as unknown as Lognormal;

function setUp(fn: SimulatedFunction, loop: EventLoop, handler: (batch: string[]) => Promise<{ failedIds: string[] }>) {
  return new StreamSimulator<string>(loop, new Random(1), { shards: 1, batchSize: 10, maxBatchingWindowSeconds: 0, retryAttempts: -1 }, PROPAGATION, fn, handler, (item) => item);
}

describe('the simulated stream mapping and its function', () => {
  it('hands a batch again whole, 1 s later, when its invocation fails with an error', async () => {
    const loop = new EventLoop(T0);
    const fn = new SimulatedFunction(loop, 'watcher', 1024);
    const batches: Array<{ at: number; items: string[] }> = [];
    const stream = setUp(fn, loop, async (batch) => {
      batches.push({ at: loop.now() - T0, items: [...batch] });
      if (batches.length === 1) throw new Error('handler failed');
      return { failedIds: [] };
    });
    for (const item of ['a', 'b', 'c']) stream.publish('key', item);
    await loop.run({ untilMs: T0 + 3_600_000 });
    expect(batches).toEqual([
      { at: 100, items: ['a', 'b', 'c'] },
      { at: 1_100, items: ['a', 'b', 'c'] },
    ]);
    expect([fn.errors, stream.dropped, stream.backlog()]).toEqual([1, 0, 0]);
  });

  it("lets the function spend its CPU time on each record of the batch before the handler's waits begin", async () => {
    const loop = new EventLoop(T0);
    // One full vCPU, 10 ms of CPU time per record.
    const fn = new SimulatedFunction(loop, 'watcher', MIB_PER_VCPU, Number.POSITIVE_INFINITY, 60_000, 10);
    const handedAt: number[] = [];
    const stream = setUp(fn, loop, async () => {
      handedAt.push(loop.now() - T0);
      return { failedIds: [] };
    });
    for (const item of ['a', 'b', 'c']) stream.publish('key', item);
    await loop.run({ untilMs: T0 + 3_600_000 });
    expect(handedAt).toEqual([100 + 30]);
  });
});
