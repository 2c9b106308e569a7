/**
 * A record put whole into the table in a state of an operation under way gets a check of its own
 * (no chain of checks runs on it yet), but only while no operation of the executor's touched it:
 * its claim is one, whatever its status says, so a batch holding the insert and that claim gets a look.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { harness, newVolume, volumeKey } from './engine-fixtures.js';
import { insert, modify } from './watcher-fixtures.js';

describe('a record put whole into the table, then claimed by the executor before the watcher saw the insert', () => {
  it('enqueues a look, not a check of its own: the claim is an operation of the executor, whose own chain of checks stays the only one', async () => {
    const h = harness();
    const at = new Date(h.clock.now()).toISOString();
    const inserted = newVolume('data-1', { ebsVolumeId: 'vol-0123456789abcdef0', status: { state: 'modifying', attempts: 0, updatedAt: at, operationStartedAt: at } });
    await h.store.create(inserted);
    const claimed = await h.store.update<VolumeRecord>(volumeKey('data-1'), { claim: { owner: 'executor-1', expiresAt: h.clock.now() + 60_000 } });
    expect(await h.watcher.handle([insert(inserted, 'c1'), modify(inserted, claimed, 'c2')])).toEqual({ failedChangeIds: [] });
    expect(h.queue.pending().map((pending) => pending.message)).toEqual([expect.objectContaining({ op: 'check-volume', nudge: true })]);
  });
});
