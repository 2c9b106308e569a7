/**
 * Operations deferred for want of a token of this environment's share come back spread at the
 * rate all the environments together may use (`concurrentEnvironments` × the share's refill), so
 * other environments take them up rather than all waiting for this one's budget.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_ENGINE_CONFIG } from '../../lib/engine/config.js';
import { harness, newVolume, volumeKey } from './engine-fixtures.js';

describe('operations deferred from one environment of four', () => {
  it('come back a refill interval of all four apart, not of this one alone', async () => {
    // A share of two tokens, refilled one every 2 s; four environments together refill one every 0.5 s.
    const rateBudgets = { ...DEFAULT_ENGINE_CONFIG.rateBudgets, CreateVolume: { burst: 2, ratePerSecond: 0.5 } };
    const h = harness({ config: { rateBudgets, concurrentEnvironments: 4 } });
    const ids = ['a', 'b', 'c', 'd', 'e', 'f'];
    for (const id of ids) await h.store.create(newVolume(id));

    await h.executor.run(h.batchOf(...ids.map((id) => h.op('create-volume', volumeKey(id)))));

    expect(h.ebs.calls.CreateVolume).toBe(2);
    // Due 0.5, 1, 1.5 and 2 s from now: each message's delay rounded up to the whole second.
    expect(h.queued().filter((q) => q.op === 'create-volume')).toEqual([
      { op: 'create-volume', key: 'c', delaySeconds: 1 },
      { op: 'create-volume', key: 'd', delaySeconds: 1 },
      { op: 'create-volume', key: 'e', delaySeconds: 2 },
      { op: 'create-volume', key: 'f', delaySeconds: 2 },
    ]);
  });
});
