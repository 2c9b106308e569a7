/**
 * A volume at rest given another spec drops the failed attempts toward the old one (its tag change
 * or grow toward the new one is another operation). A volume whose CreateVolume is failing is not
 * at rest: a spec change while it waits for its retry leaves the create's failed attempts and the
 * time of its next attempt as they are (the create is the same operation, toward the spec as it is now).
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { harness, newVolume, volumeKey } from './engine-fixtures.js';
import { modify } from './watcher-fixtures.js';

describe('a spec change of a volume whose create is failing', () => {
  it('keeps the failed attempts of its CreateVolume and their next attempt', async () => {
    const h = harness();
    const at = new Date(h.clock.now()).toISOString();
    const failedCreate = {
      state: 'pending' as const,
      code: 'RequestTimeout',
      message: 'Request timed out',
      attempts: 2,
      updatedAt: at,
      operationStartedAt: at,
      nextAttemptAt: new Date(h.clock.now() + 60_000).toISOString(),
    };
    const volume = newVolume('data-1', { status: failedCreate });
    await h.store.create(volume);
    await h.clock.advance(1000);
    const respecified = await h.store.update<VolumeRecord>(volumeKey('data-1'), { spec: { ...volume.spec, sizeGiB: 20 }, generation: 2 });

    await h.watcher.handle([modify(volume, respecified)]);

    expect((await h.store.get(volumeKey('data-1')))?.status).toEqual(failedCreate);
  });
});
