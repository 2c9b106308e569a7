/**
 * A message carries the shared token its own operation took, for the first call that operation
 * asks of the record. When the record now asks for a call of another EC2 bucket (a tag change, where
 * a modification was planned), that token is not spent on it: the call takes a token of its own
 * bucket from the shared budget.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { DEFAULT_ENGINE_CONFIG } from '../../lib/engine/config.js';
import { MemoryRateBudget } from '../../lib/memory/rate-budget.js';
import { harness, newVolume, volumeKey, volumeOf } from './engine-fixtures.js';

describe("a modification's message carrying its token, delivered when only the tags differ", () => {
  it('makes the CreateTags on a CreateTags token taken from the shared budget', async () => {
    const shared = new MemoryRateBudget();
    const h = harness({ rateBudget: shared });
    await h.store.create(newVolume('data-1', {}, { tags: { team: 'a' } }));
    await h.watch();
    await h.settle(10_000);
    await h.watch();
    expect((await volumeOf(h)).status.state).toBe('available');
    h.changes.splice(0);
    h.queue.purge();
    const volume = await volumeOf(h);
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { spec: { ...volume.spec, tags: { team: 'a', env: 'prod' } }, generation: volume.generation + 1 });
    const createTagsBefore = h.ebs.calls.CreateTags ?? 0;
    const levelBefore = shared.level('CreateTags');

    await h.executor.run([{ messageId: 'm-carried', message: { op: 'modify-volume', key: volumeKey('data-1'), tokenAt: h.clock.now() } }]);

    expect((h.ebs.calls.CreateTags ?? 0) - createTagsBefore).toBe(1);
    expect(shared.level('CreateTags')?.tokens).toBe((levelBefore?.tokens ?? DEFAULT_ENGINE_CONFIG.accountRateBudgets.CreateTags.burst) - 1);
  });
});
