/**
 * `tokenReservationHorizonMs` 0 takes no shared token ahead of `rateWaitMaxMs`: an operation still
 * takes one usable within `rateWaitMaxMs` and waits for it on the clock, as it does with a horizon.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_ENGINE_CONFIG } from '../../lib/engine/config.js';
import { MemoryRateBudget } from '../../lib/memory/rate-budget.js';
import { harness, newVolume, volumeKey } from './engine-fixtures.js';

describe('with no reservation horizon', () => {
  it('an operation whose shared token is due within rateWaitMaxMs waits for it and is made in the same invocation', async () => {
    const accountRateBudgets = { ...DEFAULT_ENGINE_CONFIG.accountRateBudgets, CreateVolume: { burst: 1, ratePerSecond: 1 } };
    const h = harness({ config: { accountRateBudgets, tokenReservationHorizonMs: 0, rateWaitMaxMs: 5000 }, rateBudget: new MemoryRateBudget() });
    for (const id of ['a', 'b']) await h.store.create(newVolume(id));

    const run = h.executor.run(h.batchOf(h.op('create-volume', volumeKey('a')), h.op('create-volume', volumeKey('b'))));
    await h.clock.advance(0);
    expect(h.ebs.calls.CreateVolume).toBe(1);
    await h.clock.advance(1000);
    await run;

    expect(h.ebs.calls.CreateVolume).toBe(2);
    expect(h.queued().filter((q) => q.op === 'create-volume')).toEqual([]);
  });
});
