/**
 * A message carrying a shared token taken for it earlier (`OperationMessage.tokenAt`) spends it when
 * it is usable within the time the invocation may wait for a token (`rateWaitMaxMs`), that bound
 * included: a token usable at this very moment, with no wait allowed, is spent now, and the
 * operation is not deferred.
 */
import { describe, expect, it } from 'vitest';
import type { OperationMessage } from '../../lib/engine/ports.js';
import { MemoryRateBudget } from '../../lib/memory/rate-budget.js';
import { harness, newVolume, volumeKey, volumeOf } from './engine-fixtures.js';

const KEY = volumeKey('data-1');

describe('a carried token usable exactly now, with rateWaitMaxMs 0', () => {
  it('is spent at once: CreateVolume is made and nothing is deferred', async () => {
    const h = harness({ rateBudget: new MemoryRateBudget() });
    await h.store.create(newVolume('data-1'));
    const message: OperationMessage = { op: 'create-volume', key: KEY, reason: 'waiting for the CreateVolume rate budget', tokenAt: h.clock.now() };

    expect((await h.executor.run(h.batchOf(message))).failedMessageIds).toEqual([]);

    expect(h.ebs.calls.CreateVolume).toBe(1);
    expect((await volumeOf(h)).status.state).toBe('creating');
    expect(h.queued().filter((queued) => queued.op === 'create-volume')).toEqual([]);
  });
});
