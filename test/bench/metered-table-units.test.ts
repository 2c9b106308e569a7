/**
 * The metered table of the simulation, as BENCHMARKS.md (What the simulation models) states it:
 * every write one write unit, every item read one read unit, a query one unit per 8 items (at
 * least one), half that when eventually consistent; BatchGetItem 100 keys a request; the shared
 * rate budget's take two round trips, one read and one write unit, granted between them; reading
 * a bucket's line one round trip and half a read unit.
 */
import { describe, expect, it } from 'vitest';
import { EventLoop } from '../../bench/sim/event-loop.js';
import { Lognormal } from '../../bench/sim/latency.js';
import { Random } from '../../bench/sim/random.js';
import { MeteredRateBudget, MeteredRecordStore } from '../../bench/sim/dynamodb.js';
import { MemoryRecordStore } from '../../lib/memory/index.js';
import { newAttachmentRecord } from '../../lib/api/service.js';
import { newVolume } from '../unit/engine-fixtures.js';
import type { SharedRateBudget } from '../../lib/engine/ports.js';
import type { RateBudget } from '../../lib/engine/config.js';

const T0 = Date.UTC(2026, 0, 1);
/** A fixed 10 ms round trip, so times can be stated exactly. */
const ROUND_TRIP = new Lognormal(10, 10);

async function inLoop<T>(loop: EventLoop, work: () => Promise<T>): Promise<T> {
  const running = work();
  await loop.run({ done: () => false, untilMs: T0 + 3_600_000 });
  return running;
}

function measure(store: MeteredRecordStore, loop: EventLoop) {
  return async (action: () => Promise<unknown>) => {
    const before = { read: store.readUnits, write: store.tableWriteUnits, requests: store.requests, at: loop.now() };
    await action();
    return { read: store.readUnits - before.read, write: store.tableWriteUnits - before.write, requests: store.requests - before.requests, ms: loop.now() - before.at };
  };
}

describe('the metered table', () => {
  it('charges an item read one read unit and every write one write unit, each a round trip', async () => {
    const loop = new EventLoop(T0);
    const store = new MeteredRecordStore(loop, new Random(1), new MemoryRecordStore(), ROUND_TRIP);
    const now = new Date(T0).toISOString();
    const volume = newVolume('v-1', { createdAt: now }, { sizeGiB: 8 });
    const key = { kind: 'volume' as const, volumeId: 'v-1' };
    const costs = await inLoop(loop, async () => {
      const cost = measure(store, loop);
      return [
        await cost(() => store.create(volume)),
        await cost(() => store.get(key)),
        await cost(() => store.update(key, { life: 'dying' })),
        await cost(() => store.claim(key, 'owner-1', loop.now(), 60_000)),
        await cost(() => store.release(key, 'owner-1')),
        await cost(() => store.remove(key)),
      ];
    });
    expect(costs).toEqual([
      { read: 0, write: 1, requests: 1, ms: 10 },
      { read: 1, write: 0, requests: 1, ms: 10 },
      { read: 0, write: 1, requests: 1, ms: 10 },
      { read: 0, write: 1, requests: 1, ms: 10 },
      { read: 0, write: 1, requests: 1, ms: 10 },
      { read: 0, write: 1, requests: 1, ms: 10 },
    ]);
  });

  it('reads many items as BatchGetItem requests of 100 keys sent together, one read unit an item, and sends none for no keys', async () => {
    const loop = new EventLoop(T0);
    const store = new MeteredRecordStore(loop, new Random(1), new MemoryRecordStore(), ROUND_TRIP);
    const keys = Array.from({ length: 250 }, (_, i) => ({ kind: 'volume' as const, volumeId: `v-${i}` }));
    const costs = await inLoop(loop, async () => {
      const cost = measure(store, loop);
      return [await cost(() => store.getMany(keys)), await cost(() => store.getMany([]))];
    });
    expect(costs).toEqual([
      { read: 250, write: 0, requests: 3, ms: 10 },
      { read: 0, write: 0, requests: 0, ms: 0 },
    ]);
  });

  it('charges a query that finds nothing one read unit, half of one when eventually consistent', async () => {
    const loop = new EventLoop(T0);
    const store = new MeteredRecordStore(loop, new Random(1), new MemoryRecordStore(), ROUND_TRIP);
    const costs = await inLoop(loop, async () => {
      const cost = measure(store, loop);
      return [
        await cost(() => store.attachmentsOfVolume('v-none')),
        await cost(() => store.attachmentsOfInstance('i-none')),
        await cost(() => store.list({ limit: 100 })),
      ];
    });
    expect(costs.map((c) => c.read)).toEqual([1, 0.5, 0.5]);
  });

  it('charges a consistent query of 9 items two read units, one unit per 8 items started', async () => {
    const loop = new EventLoop(T0);
    const store = new MeteredRecordStore(loop, new Random(1), new MemoryRecordStore(), ROUND_TRIP);
    const now = new Date(T0).toISOString();
    const volume = newVolume('v-1', { createdAt: now }, { sizeGiB: 8, multiAttach: true } as never);
    const read = await inLoop(loop, async () => {
      await store.create(volume);
      for (let i = 0; i < 9; i++) await store.create(newAttachmentRecord(volume, `i-${i}`, now));
      const before = store.readUnits;
      await store.attachmentsOfVolume('v-1');
      return store.readUnits - before;
    });
    expect(read).toBe(2);
  });
});

describe('the metered shared rate budget', () => {
  const budget: RateBudget = { burst: 10, ratePerSecond: 5 } as RateBudget;

  it('takes in two round trips, one read and one write unit, granted at the moment between them', async () => {
    const loop = new EventLoop(T0);
    const asked: number[] = [];
    const inner: SharedRateBudget = {
      take: async (_bucket, _count, _budget, now) => {
        asked.push(now);
        return { usableAt: [now], nextAt: now };
      },
      waitMs: async () => 0,
    };
    const metered = new MeteredRateBudget(loop, new Random(1), inner, ROUND_TRIP);
    const took = await inLoop(loop, async () => {
      const grant = await metered.take('CreateVolume', 1, budget, T0, 60_000);
      return { grant, endedAt: loop.now() };
    });
    expect(asked).toEqual([T0 + 10]);
    expect(took).toEqual({ grant: { usableAt: [T0 + 10], nextAt: T0 + 10 }, endedAt: T0 + 20 });
    expect([metered.readUnits, metered.writeUnits]).toEqual([1, 1]);
  });

  it("reads a bucket's line in one round trip for half a read unit, writing nothing", async () => {
    const loop = new EventLoop(T0);
    const inner: SharedRateBudget = { take: async () => ({ usableAt: [], nextAt: 0 }), waitMs: async () => 250 };
    const metered = new MeteredRateBudget(loop, new Random(1), inner, ROUND_TRIP);
    const read = await inLoop(loop, async () => ({ waitMs: await metered.waitMs('AttachVolume', budget, T0), endedAt: loop.now() }));
    expect(read).toEqual({ waitMs: 250, endedAt: T0 + 10 });
    expect([metered.readUnits, metered.writeUnits]).toEqual([0.5, 0]);
  });
});
