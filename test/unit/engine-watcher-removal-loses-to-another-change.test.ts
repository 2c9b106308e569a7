/**
 * A record with nothing in EC2 is removed without any call, unless it moved on meanwhile: a removal
 * that loses to another change is no failure of the change handled (the stream brings that other
 * change on its own), so nothing is retried, and the record stays.
 */
import { describe, expect, it } from 'vitest';
import { ConditionFailedError } from '../../lib/engine/ports.js';
import { harness, newVolume, volumeKey } from './engine-fixtures.js';
import { insert } from './watcher-fixtures.js';

describe('a dying volume never created whose removal loses to another change', () => {
  it('is left in the table, its change not failed, and nothing is sent', async () => {
    const h = harness();
    const calls = { ...h.ebs.calls };
    const volume = newVolume('data-1', { life: 'dying' });
    await h.store.create(volume);
    h.store.failNext('remove', new ConditionFailedError('volume/data-1: version is 2'));
    expect(await h.watcher.handle([insert(volume)])).toEqual({ failedChangeIds: [] });
    expect(await h.store.get(volumeKey('data-1'))).toEqual(volume);
    expect(h.queued()).toEqual([]);
    expect(h.ebs.calls).toEqual(calls);
  });
});
