/**
 * A volume at rest given another spec drops the failed attempts toward the old one, but a volume
 * already dying keeps those of its delete: a spec its client writes in the table meanwhile asks for
 * nothing the delete makes, and leaves the failed attempts and their next attempt as they are.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { data1Created, harness, volumeKey } from './engine-fixtures.js';
import { modify } from './watcher-fixtures.js';

describe('a spec written in the table onto a dying volume whose delete failed', () => {
  it('keeps the failed attempts of the delete and their next attempt', async () => {
    const h = harness();
    await data1Created(h);
    const at = new Date(h.clock.now()).toISOString();
    const failedDelete = {
      state: 'available' as const,
      code: 'RequestLimitExceeded',
      message: 'Request limit exceeded',
      attempts: 2,
      updatedAt: at,
      operationStartedAt: at,
      nextAttemptAt: new Date(h.clock.now() + 60_000).toISOString(),
    };
    const dying = await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'dying', status: failedDelete });
    h.changes.splice(0);
    const changed = await h.store.update<VolumeRecord>(volumeKey('data-1'), { spec: { ...dying.spec, tags: { team: 'b' } } });

    await h.watcher.handle([modify(dying, changed)]);

    expect((await h.store.get(volumeKey('data-1')))?.status).toEqual(failedDelete);
  });
});
