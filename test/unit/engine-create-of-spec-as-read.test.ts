/**
 * A CreateVolume made afresh (its first send refused) is of the spec as the executor read it: a
 * client change written between that read and the request's record (new tags, a new zone) is not sent under
 * the old spec's name; the next attempt sends the spec as it is then.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import type { RecordChanges } from '../../lib/engine/ports.js';
import { harness, newVolume, START, settleAll, volumeKey, volumeOf } from './engine-fixtures.js';

describe('a CreateVolume made afresh on a record already creating', () => {
  it('is not sent for a spec the client changed before the request was recorded', async () => {
    const h = harness();
    // Its first send refused with a definite no: creating, nothing recorded of a request.
    await h.store.create(newVolume('data-1', { status: { state: 'creating', attempts: 1, updatedAt: new Date(START).toISOString() } }));
    const update = h.store.update.bind(h.store);
    let changed = false;
    h.store.update = (async (key, changes, condition) => {
      if (!changed && (changes as RecordChanges<VolumeRecord>).createRequest) {
        changed = true;
        const current = await volumeOf(h);
        await update<VolumeRecord>(volumeKey('data-1'), { spec: { ...current.spec, tags: { team: 'b' } }, generation: 2 });
      }
      return update(key, changes, condition);
    }) as typeof h.store.update;
    await settleAll(h);

    expect(changed).toBe(true);
    expect(h.createRequests.map((request) => request.spec.tags)).toEqual([{ team: 'b' }]);
    expect(await volumeOf(h)).toMatchObject({ observedGeneration: 2, observed: { tags: { team: 'b' } }, status: { state: 'available' } });
  });
});
