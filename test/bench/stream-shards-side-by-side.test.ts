/**
 * The simulated stream (`bench/sim/stream.ts`) spreads changes over its shards by partition key,
 * and its mapping runs one invocation per shard at a time (parallelization factor 1): changes of
 * different keys can be handled side by side, never more at once than there are shards. Keys are
 * spread by 32-bit FNV-1a, an unsigned hash.
 */
import { describe, expect, it } from 'vitest';
import { EventLoop } from '../../bench/sim/event-loop.js';
import { SimulatedFunction } from '../../bench/sim/lambda.js';
import { Lognormal } from '../../bench/sim/latency.js';
import { Random } from '../../bench/sim/random.js';
import { StreamSimulator, fnv1a } from '../../bench/sim/stream.js';

const T0 = Date.UTC(2026, 0, 1);

describe('the simulated stream over several shards', () => {
  it('handles changes of different keys on several shards at once, one invocation per shard at most', async () => {
    const loop = new EventLoop(T0);
    const fn = new SimulatedFunction(loop, 'watcher', 1024);
    const stream = new StreamSimulator<string>(
      loop,
      new Random(5),
      { shards: 4, batchSize: 1, maxBatchingWindowSeconds: 0, retryAttempts: -1 },
      new Lognormal(100, 100),
      fn,
      async () => {
        await loop.clock.sleep(1_000);
        return { failedIds: [] };
      },
      (item) => item,
    );
    for (let i = 0; i < 16; i++) stream.publish(`key-${i}`, `change-${i}`);
    await loop.run({ untilMs: T0 + 3_600_000 });
    expect(fn.invocations).toBe(16);
    expect(fn.peakConcurrency).toBeGreaterThan(1);
    expect(fn.peakConcurrency).toBeLessThanOrEqual(4);
  });

  it('hashes a partition key with 32-bit FNV-1a, giving the published test values as unsigned numbers', () => {
    expect(fnv1a('')).toBe(0x811c9dc5);
    expect(fnv1a('a')).toBe(0xe40c292c);
    expect(fnv1a('foobar')).toBe(0xbf9cf968);
  });
});
