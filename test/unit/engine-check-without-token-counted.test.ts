/**
 * A check that plans a call takes only a token usable now; without one it is dropped (the
 * operation's own message may hold a token taken ahead). Dropped, it is still one data point of
 * the `Operations` metric, outcome `skipped`: every message handled counts once.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_ENGINE_CONFIG } from '../../lib/engine/config.js';
import { MemoryRateBudget } from '../../lib/memory/rate-budget.js';
import { harness, newVolume, volumeKey } from './engine-fixtures.js';

describe('a check planning a call, with no shared token usable now', () => {
  it('is dropped and counted once as skipped', async () => {
    const config = {
      rateBudgets: { ...DEFAULT_ENGINE_CONFIG.rateBudgets, CreateVolume: { burst: 1, ratePerSecond: 1 } },
      accountRateBudgets: { ...DEFAULT_ENGINE_CONFIG.accountRateBudgets, CreateVolume: { burst: 3, ratePerSecond: 1 } },
    };
    const h = harness({ config, rateBudget: new MemoryRateBudget() });
    for (const id of ['a', 'b', 'c', 'd']) await h.store.create(newVolume(id));
    // The shared bucket's three tokens spent.
    await h.executor.run(h.batchOf(...['a', 'b', 'c'].map((id) => h.op('create-volume', volumeKey(id)))));
    const before = h.metrics.outcomes().length;

    await h.executor.run(h.batchOf(h.op('check-volume', volumeKey('d'))));

    expect(h.ebs.calls.CreateVolume).toBe(3);
    expect(h.metrics.outcomes().slice(before)).toEqual(['skipped']);
  });
});
