import { describe, expect, it } from 'vitest';
import { DEFAULT_ENGINE_CONFIG } from '../../lib/engine/config.js';
import { Executor } from '../../lib/engine/executor.js';
import type { RecordStore, SharedRateBudget } from '../../lib/engine/ports.js';
import { silentLog } from '../../lib/memory/log.js';
import { MemoryRateBudget } from '../../lib/memory/rate-budget.js';
import { harness, newVolume, volumeKey, volumeOf } from './engine-fixtures.js';

describe("a token of the shared budget, not spent because the call was not made", () => {
  it("is carried by the message sent again, not given to the environment's own share", async () => {
    // The own share: one CreateVolume, then one every 100 s.
    const ownShare = { ...DEFAULT_ENGINE_CONFIG.rateBudgets, CreateVolume: { burst: 1, ratePerSecond: 0.01 } };
    const memory = new MemoryRateBudget();
    let reachable = false;
    const shared: SharedRateBudget = {
      take: async (...args) => {
        if (!reachable) throw new Error('rate budget table unreachable');
        return memory.take(...args);
      },
      waitMs: async (...args) => {
        if (!reachable) throw new Error('rate budget table unreachable');
        return memory.waitMs(...args);
      },
    };
    const config = { rateWaitMaxMs: 0, concurrentEnvironments: 1, rateBudgets: ownShare };
    const h = harness({ config, rateBudget: shared });
    for (const id of ['a', 'b', 'c']) await h.store.create(newVolume(id));
    const start = h.clock.now();
    // Another invocation claims b between this one's read and its claim.
    let meanwhile: (() => Promise<unknown>) | undefined;
    const store: RecordStore = Object.create(h.store);
    store.getMany = async (keys) => {
      const records = await h.store.getMany(keys);
      await meanwhile?.();
      meanwhile = undefined;
      return records;
    };
    // One executor environment throughout: its own share lives in it.
    const executor = new Executor({ store, queue: h.queue, provider: h.ebs, clock: h.clock, metrics: h.metrics, log: silentLog, rateBudget: shared, config });

    // The shared budget unreachable: a takes the own share's one token.
    await executor.run(h.batchOf(h.op('create-volume', volumeKey('a'))));
    expect(h.ebs.calls.CreateVolume).toBe(1);

    // Reachable: b takes a shared token, then loses its claim; its message carries the token.
    reachable = true;
    meanwhile = () => h.store.claim(volumeKey('b'), 'other-invocation', start, 60_000);
    await executor.run(h.batchOf(h.op('create-volume', volumeKey('b'))));
    expect(h.ebs.calls.CreateVolume).toBe(1);
    const forB = h.queue.pending().filter((p) => p.message.key.kind === 'volume' && p.message.key.volumeId === volumeKey('b').volumeId);
    expect(forB.map((p) => [p.message.op, p.message.tokenAt])).toEqual([['create-volume', start]]);

    // Unreachable again, at the same moment: the own share is still empty, so c waits for its refill.
    reachable = false;
    await executor.run(h.batchOf(h.op('create-volume', volumeKey('c'))));
    expect(h.ebs.calls.CreateVolume).toBe(1);
    expect((await volumeOf(h, 'c')).status.state).toBe('pending');
  });
});
