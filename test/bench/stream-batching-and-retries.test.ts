/**
 * The simulated stream's event source mapping (`bench/sim/stream.ts`): a batch goes as soon as it
 * is full, or when the batching window, started when its first record could be read, ends; a
 * record can be read no sooner than the earlier records of its shard; a failed batch is retried
 * from its first failed record 1 s later, and that record dropped once its retry attempts are
 * spent (never with -1).
 */
import { describe, expect, it } from 'vitest';
import { EventLoop } from '../../bench/sim/event-loop.js';
import { SimulatedFunction } from '../../bench/sim/lambda.js';
import type { Lognormal } from '../../bench/sim/latency.js';
import { Random } from '../../bench/sim/random.js';
import { StreamSimulator, type StreamMappingSettings } from '../../bench/sim/stream.js';

const T0 = Date.UTC(2026, 0, 1);
const BASE: StreamMappingSettings = { shards: 1, batchSize: 10, maxBatchingWindowSeconds: 0, retryAttempts: -1 };

/** Propagation delays given in order, one per published change. */
function scripted(delays: number[]): Lognormal {
  return { sample: () => delays.shift()! } as unknown as Lognormal;
}

function setUp(settings: Partial<StreamMappingSettings>, delays: number[], handler: (batch: string[]) => { failedIds: string[] } = () => ({ failedIds: [] })) {
  const loop = new EventLoop(T0);
  const fn = new SimulatedFunction(loop, 'watcher', 1024);
  const batches: Array<{ at: number; items: string[] }> = [];
  const stream = new StreamSimulator<string>(
    loop,
    new Random(1),
    { ...BASE, ...settings },
    scripted(delays),
    fn,
    async (batch) => {
      batches.push({ at: loop.now() - T0, items: [...batch] });
      return handler(batch);
    },
    (item) => item,
  );
  const run = () => loop.run({ done: () => false, untilMs: T0 + 3_600_000 });
  return { loop, stream, batches, run };
}

describe('the simulated stream mapping', () => {
  it('hands a full batch at once, without waiting out the batching window', async () => {
    const { stream, batches, run } = setUp({ batchSize: 2, maxBatchingWindowSeconds: 5 }, [100, 100]);
    stream.publish('key', 'a');
    stream.publish('key', 'b');
    await run();
    expect(batches).toEqual([{ at: 100, items: ['a', 'b'] }]);
  });

  it('ends the batching window on time when the next record becomes readable only after it', async () => {
    const { stream, batches, run } = setUp({ batchSize: 3, maxBatchingWindowSeconds: 1 }, [100, 3000]);
    stream.publish('key', 'a');
    stream.publish('key', 'b');
    await run();
    expect(batches).toEqual([
      { at: 1100, items: ['a'] },
      { at: 4000, items: ['b'] },
    ]);
  });

  it('holds a record that propagates faster behind the earlier records of its shard, its batching window starting only when it can be read', async () => {
    const { loop, stream, batches, run } = setUp({ batchSize: 2, maxBatchingWindowSeconds: 2 }, [100, 1000, 10]);
    stream.publish('key', 'a'); // readable at 100
    loop.at(T0 + 50, () => stream.publish('key', 'b')); // readable at 1050
    loop.at(T0 + 60, () => stream.publish('key', 'c')); // propagated at 70, readable after b: 1050
    await run();
    expect(batches).toEqual([
      { at: 1050, items: ['a', 'b'] },
      { at: 3050, items: ['c'] },
    ]);
  });

  it('drops a failed record at its first failure with no retry attempts', async () => {
    const { stream, batches, run } = setUp({ retryAttempts: 0 }, [100, 100, 100], (batch) => ({ failedIds: batch.filter((item) => item === 'b') }));
    for (const item of ['a', 'b', 'c']) stream.publish('key', item);
    await run();
    expect(batches).toEqual([
      { at: 100, items: ['a', 'b', 'c'] },
      { at: 1100, items: ['c'] },
    ]);
    expect(stream.dropped).toBe(1);
  });

  it('retries a failed record until it succeeds with retry attempts -1, 1 s after each failure, dropping none', async () => {
    let failures = 0;
    const { stream, batches, run } = setUp({ retryAttempts: -1 }, [100, 100], (batch) => ({ failedIds: batch.includes('a') && failures++ < 4 ? ['a'] : [] }));
    stream.publish('key', 'a');
    stream.publish('key', 'b');
    await run();
    expect(batches.map((b) => b.at)).toEqual([100, 1100, 2100, 3100, 4100]);
    expect(batches.at(-1)!.items).toEqual(['a', 'b']);
    expect(stream.dropped).toBe(0);
  });

  it('hands the next batch at once after a batch that succeeded', async () => {
    const { stream, batches, run } = setUp({ batchSize: 1 }, [100, 100]);
    stream.publish('key', 'a');
    stream.publish('key', 'b');
    await run();
    expect(batches.map((b) => b.at)).toEqual([100, 100]);
  });
});
