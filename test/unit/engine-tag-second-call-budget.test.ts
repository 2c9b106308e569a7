/**
 * A tag change that sets keys and removes others makes two calls: DeleteTags on the token reserved
 * for it, then CreateTags on a token taken at the time. When the shared budget has none soon
 * enough for the second (other environments spent the CreateTags bucket), CreateTags is not
 * sent: no attempt is used, and it is made once the budget has a token again.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { DEFAULT_ENGINE_CONFIG } from '../../lib/engine/config.js';
import { MemoryRateBudget } from '../../lib/memory/index.js';
import { harness, newVolume, volumeKey, volumeOf } from './engine-fixtures.js';

const KEY = volumeKey('data-1');
const MINUTE = 60_000;

describe('executor: the second call of a tag change finds no token in the shared budget', () => {
  it('is deferred unsent, with no attempt used, and made once the budget refills', async () => {
    const rateBudget = new MemoryRateBudget();
    const h = harness({ rateBudget });
    await h.store.create(newVolume('data-1', {}, { tags: { team: 'a', env: 'dev' } }));
    await h.watch();
    await h.settle(10_000);
    await h.watch();
    const volume = await volumeOf(h);
    expect(volume.status.state).toBe('available');

    // Other environments spent the CreateTags bucket for minutes ahead.
    await rateBudget.take('CreateTags', 2000, DEFAULT_ENGINE_CONFIG.accountRateBudgets.CreateTags, h.clock.now(), Number.POSITIVE_INFINITY);
    await h.store.update<VolumeRecord>(KEY, { spec: { ...volume.spec, tags: { team: 'b' } }, generation: 2 });
    await h.watch();
    await h.drain();
    expect(h.ebs.calls).toMatchObject({ CreateTags: 0, DeleteTags: 1 });
    const deferred = await volumeOf(h);
    expect(deferred.status).toMatchObject({ state: 'available', code: 'RateBudgetExceeded', attempts: 0 });
    expect(deferred.status.message).toMatch(/shared CreateTags rate budget has no token soon enough/);
    expect(deferred.observedGeneration).toBe(1);

    await h.settle(5 * MINUTE, 10_000);
    await h.watch();
    expect(h.ebs.calls).toMatchObject({ CreateTags: 1, DeleteTags: 1 });
    expect(await volumeOf(h)).toMatchObject({ observed: { tags: { team: 'b' } }, observedGeneration: 2, status: { state: 'available', attempts: 0 } });
  });
});
