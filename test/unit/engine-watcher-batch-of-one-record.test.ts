/**
 * Several changes of one record in a batch are answered by the record's current state: the last
 * image judges whether the table needs reading at all, and a record still as its client put it
 * whole into the table, changed since by its client only, has no chain of checks running on it.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { harness, newVolume, volumeKey } from './engine-fixtures.js';
import { insert, modify } from './watcher-fixtures.js';

describe('several changes of one record in one batch', () => {
  it('a claim, then a status the system does not write: the record is judged and rejected, as the last change shows it', async () => {
    const h = harness();
    const volume = newVolume('data-1');
    await h.store.create(volume);
    const claimed = await h.store.update<VolumeRecord>(volumeKey('data-1'), { claim: { owner: 'executor-1', expiresAt: h.clock.now() + 60_000 } });
    const broken = { ...claimed, status: { ...claimed.status, state: 'melting' } };
    h.store.putRaw(broken);
    expect(await h.watcher.handle([modify(volume, claimed, 'c1'), modify(claimed, broken, 'c2')])).toEqual({ failedChangeIds: [] });
    expect((await h.store.get(volumeKey('data-1')))?.status).toMatchObject({ state: 'error', code: 'InvalidRecord' });
    expect(h.metrics.counter('InvalidRecords')).toBe(1);
    expect(h.queued()).toEqual([]);
  });

  it('an insert in a state of an operation under way, then a spec change its client wrote in the table: a check of its own, no look', async () => {
    const h = harness();
    const at = new Date(h.clock.now()).toISOString();
    const inserted = newVolume('data-1', { ebsVolumeId: 'vol-0123456789abcdef0', status: { state: 'modifying', attempts: 0, updatedAt: at, operationStartedAt: at } });
    await h.store.create(inserted);
    const changed = await h.store.update<VolumeRecord>(volumeKey('data-1'), { spec: { ...inserted.spec, sizeGiB: 20 }, generation: 2 });
    await h.watcher.handle([insert(inserted, 'c1'), modify(inserted, changed, 'c2')]);
    const messages = h.queue.pending().map((pending) => pending.message);
    expect(messages).toEqual([expect.objectContaining({ op: 'check-volume' })]);
    expect(messages[0]!.nudge).toBeUndefined();
  });
});
