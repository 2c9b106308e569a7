/**
 * An operation deferred for a rate token further off than a message can be delayed comes back
 * after the longest delay the queue allows (`maxMessageDelaySeconds`), to take its token then.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_ENGINE_CONFIG, type EngineConfig } from '../../lib/engine/config.js';
import { MemoryRateBudget } from '../../lib/memory/rate-budget.js';
import { harness, newVolume, volumeKey } from './engine-fixtures.js';

describe('an operation whose rate token is further off than a message can be delayed', () => {
  it("is deferred by the queue's longest delay", async () => {
    // One CreateVolume token, refilled every 1 000 s.
    const config: Partial<EngineConfig> = { accountRateBudgets: { ...DEFAULT_ENGINE_CONFIG.accountRateBudgets, CreateVolume: { burst: 1, ratePerSecond: 0.001 } }, tokenReservationHorizonMs: 50_000 };
    const h = harness({ config, rateBudget: new MemoryRateBudget() });
    for (const id of ['data-1', 'data-2']) await h.store.create(newVolume(id));
    await h.executor.run(h.batchOf(...['data-1', 'data-2'].map((id) => h.op('create-volume', volumeKey(id)))));
    expect(h.createRequests).toHaveLength(1);
    expect(DEFAULT_ENGINE_CONFIG.maxMessageDelaySeconds).toBeLessThan(1_000);
    expect(h.queued().filter((message) => message.op === 'create-volume').map((message) => message.delaySeconds)).toEqual([DEFAULT_ENGINE_CONFIG.maxMessageDelaySeconds]);
  });
});
