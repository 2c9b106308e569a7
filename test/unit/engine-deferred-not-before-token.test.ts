/**
 * An operation deferred for a shared token taken ahead comes back once that token is usable, not
 * before: its message's delay is rounded up to the whole second.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_ENGINE_CONFIG, type EngineConfig } from '../../lib/engine/config.js';
import { MemoryRateBudget } from '../../lib/memory/rate-budget.js';
import { harness, newVolume, volumeKey } from './engine-fixtures.js';

describe('an operation deferred for a shared token taken ahead', () => {
  it('comes back no sooner than the token is usable', async () => {
    // One CreateVolume token, refilled every 3.33 s.
    const config: Partial<EngineConfig> = { accountRateBudgets: { ...DEFAULT_ENGINE_CONFIG.accountRateBudgets, CreateVolume: { burst: 1, ratePerSecond: 0.3 } }, tokenReservationHorizonMs: 50_000 };
    const h = harness({ config, rateBudget: new MemoryRateBudget() });
    for (const id of ['data-1', 'data-2']) await h.store.create(newVolume(id));
    await h.executor.run(h.batchOf(...['data-1', 'data-2'].map((id) => h.op('create-volume', volumeKey(id)))));
    expect(h.createRequests).toHaveLength(1);
    expect(h.queued().filter((message) => message.op === 'create-volume').map((message) => message.delaySeconds)).toEqual([4]);
  });
});
