import { describe, expect, it } from 'vitest';
import { EventLoop } from '../../bench/sim/event-loop.js';
import { SimulatedFunction } from '../../bench/sim/lambda.js';
import { Lognormal } from '../../bench/sim/latency.js';
import { Random } from '../../bench/sim/random.js';
import { StreamSimulator, type StreamMappingSettings } from '../../bench/sim/stream.js';

const T0 = Date.UTC(2026, 0, 1);
const PROPAGATION = new Lognormal(100, 100);
const BASE: StreamMappingSettings = { shards: 1, batchSize: 10, maxBatchingWindowSeconds: 0, retryAttempts: -1 };

function setUp(settings: Partial<StreamMappingSettings>, handler: (batch: string[], loop: EventLoop) => Promise<{ failedIds: string[] }>) {
  const loop = new EventLoop(T0);
  const fn = new SimulatedFunction(loop, 'watcher', 1024);
  const batches: Array<{ at: number; items: string[] }> = [];
  const stream = new StreamSimulator<string>(
    loop,
    new Random(2),
    { ...BASE, ...settings },
    PROPAGATION,
    fn,
    async (batch) => {
      batches.push({ at: loop.now() - T0, items: [...batch] });
      return handler(batch, loop);
    },
    (item) => item,
  );
  return { loop, fn, stream, batches };
}

const ok = async () => ({ failedIds: [] });

describe('the simulated stream and its event source mapping', () => {
  it('refuses no shards or a batch size under 1, naming the field', () => {
    const loop = new EventLoop(T0);
    const fn = new SimulatedFunction(loop, 'watcher', 1024);
    expect(() => new StreamSimulator<string>(loop, new Random(1), { ...BASE, shards: 0 }, PROPAGATION, fn, ok, (i) => i)).toThrow(/shards/);
    expect(() => new StreamSimulator<string>(loop, new Random(1), { ...BASE, batchSize: 0 }, PROPAGATION, fn, ok, (i) => i)).toThrow(/batchSize/);
  });

  it('hands a shard one batch at a time, of at most the batch size, in order, after the propagation delay', async () => {
    const { loop, fn, stream, batches } = setUp({ batchSize: 2 }, async (_batch, l) => {
      await l.clock.sleep(500);
      return { failedIds: [] };
    });
    for (const item of ['a', 'b', 'c', 'd', 'e']) stream.publish('key', item);
    await loop.run();
    expect(batches).toEqual([
      { at: 100, items: ['a', 'b'] },
      { at: 600, items: ['c', 'd'] },
      { at: 1100, items: ['e'] },
    ]);
    expect(fn.peakConcurrency).toBe(1);
    expect([stream.batches, stream.delivered, stream.backlog()]).toEqual([3, 5, 0]);
  });

  it('never lets a change overtake an earlier one of its shard', async () => {
    const loop = new EventLoop(T0);
    const fn = new SimulatedFunction(loop, 'watcher', 1024);
    const seen: string[] = [];
    const stream = new StreamSimulator<string>(loop, new Random(3), BASE, new Lognormal(250, 800), fn, async (batch) => {
      seen.push(...batch);
      return { failedIds: [] };
    }, (i) => i);
    const items = Array.from({ length: 200 }, (_, i) => `r-${i}`);
    items.forEach((item, i) => loop.at(T0 + i * 5, () => stream.publish('key', item)));
    await loop.run();
    expect(seen).toEqual(items);
  });

  it('waits up to the batching window from the first record to fill a batch', async () => {
    const { loop, stream, batches } = setUp({ batchSize: 3, maxBatchingWindowSeconds: 1 }, ok);
    stream.publish('key', 'a');
    loop.at(T0 + 500, () => stream.publish('key', 'b'));
    loop.at(T0 + 2000, () => stream.publish('key', 'c'));
    await loop.run();
    expect(batches).toEqual([
      { at: 1100, items: ['a', 'b'] },
      { at: 3100, items: ['c'] },
    ]);
  });

  it('retries a batch from its first failed record, and drops that record after its retry attempts', async () => {
    const { loop, stream, batches } = setUp({ retryAttempts: 1 }, async (batch) => ({ failedIds: batch.filter((item) => item === 'b') }));
    for (const item of ['a', 'b', 'c']) stream.publish('key', item);
    await loop.run();
    expect(batches.map((b) => b.items)).toEqual([
      ['a', 'b', 'c'],
      ['b', 'c'],
      ['c'],
    ]);
    expect(batches[1]!.at - batches[0]!.at).toBe(1000);
    expect(stream.dropped).toBe(1);
  });
});
