/**
 * A delete drops the failed attempts of the live operation (they are not the delete's), but only
 * of a record that is dying as read: one set back to alive straight in the table before the
 * watcher saw its delete still has that operation to retry, and keeps its failures and next attempt.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { ProviderError } from '../../lib/engine/ports.js';
import { data1Created, harness, volumeKey } from './engine-fixtures.js';

describe('a volume deleted and set back to alive in the table, both seen in one batch', () => {
  it('keeps the failed attempts of its tag change and their next attempt', async () => {
    const h = harness();
    await data1Created(h);
    const volume = (await h.store.get(volumeKey('data-1'))) as VolumeRecord;
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { spec: { ...volume.spec, tags: { team: 'b' } }, generation: 2 });
    h.ebs.failNext('CreateTags', new ProviderError('transient', 'InternalError', 'An internal error has occurred'));
    await h.watch();
    await h.drain();
    await h.watch();
    const failed = (await h.store.get(volumeKey('data-1')))!.status;
    expect(failed).toMatchObject({ state: 'available', code: 'InternalError', attempts: 1, nextAttemptAt: expect.any(String) });

    await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'dying' });
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'alive' });
    await h.watch();
    const record = (await h.store.get(volumeKey('data-1')))!;
    expect(record.life).toBe('alive');
    expect(record.status).toEqual(failed);
  });
});
