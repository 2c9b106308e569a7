/**
 * A claim holds a record until `expiresAt`, not at it (the executor and the reconciler take a
 * claim ending now as lapsed): from that instant the record's next call is the one waiting in line,
 * and `rateWait` shows it.
 */
import { describe, expect, it } from 'vitest';
import type { RecordChanges } from '../../lib/engine/ports.js';
import { DEFAULT_ENGINE_CONFIG } from '../../lib/engine/config.js';
import { MemoryRateBudget } from '../../lib/memory/rate-budget.js';
import { GP3, serviceWorld } from './api-fixtures.js';

describe('rateWait of a record whose claim ends', () => {
  it('is hidden while the claim runs and shown from the instant it ends', async () => {
    const budget = new MemoryRateBudget();
    const { store, clock, service } = serviceWorld({ rateBudget: budget });
    await service.createVolume({ volumeId: 'data-01', spec: GP3 });
    // 400 tokens booked: a new call would start at 61.2 s.
    await budget.take('CreateVolume', 400, DEFAULT_ENGINE_CONFIG.accountRateBudgets.CreateVolume, clock.now(), 3_600_000);
    await store.update({ kind: 'volume', volumeId: 'data-01' }, { claim: { owner: 'executor-1', expiresAt: clock.now() + 1_000 } } as RecordChanges);
    clock.advance(999);
    expect((await service.getVolume('data-01')).rateWait).toBeUndefined();
    clock.advance(1);
    expect((await service.getVolume('data-01')).rateWait).toEqual({ action: 'CreateVolume', seconds: 61 });
  });
});
