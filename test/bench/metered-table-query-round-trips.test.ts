/**
 * The metered table of the simulation (`bench/sim/dynamodb.ts`) puts every request behind a
 * DynamoDB round trip: a Query of the table or of its index and a Scan page are each one request
 * and take one round trip, as an item read or a write does.
 */
import { describe, expect, it } from 'vitest';
import { EventLoop } from '../../bench/sim/event-loop.js';
import { Lognormal } from '../../bench/sim/latency.js';
import { Random } from '../../bench/sim/random.js';
import { MeteredRecordStore } from '../../bench/sim/dynamodb.js';
import { MemoryRecordStore } from '../../lib/memory/index.js';

const T0 = Date.UTC(2026, 0, 1);

describe('the metered table’s queries and scans', () => {
  it('are one request and one 10 ms round trip each, as are a claim and its release', async () => {
    const loop = new EventLoop(T0);
    const store = new MeteredRecordStore(loop, new Random(1), new MemoryRecordStore(), new Lognormal(10, 10));
    const costs: Array<{ requests: number; ms: number }> = [];
    const cost = async (action: () => Promise<unknown>) => {
      const before = { requests: store.requests, at: loop.now() };
      await action();
      costs.push({ requests: store.requests - before.requests, ms: loop.now() - before.at });
    };
    const work = (async () => {
      await cost(() => store.attachmentsOfVolume('v-none'));
      await cost(() => store.attachmentsOfInstance('i-none'));
      await cost(() => store.list({ limit: 100 }));
      await cost(() => store.claim({ kind: 'volume', volumeId: 'v-none' }, 'executor-1', T0, 60_000));
      await cost(() => store.release({ kind: 'volume', volumeId: 'v-none' }, 'executor-1'));
    })();
    await loop.run({ done: () => false, untilMs: T0 + 3_600_000 });
    await work;
    expect(costs).toEqual(Array.from({ length: 5 }, () => ({ requests: 1, ms: 10 })));
  });
});
