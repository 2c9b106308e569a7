/**
 * A retry is a generation bumped on a live record in error. One bumped while the record was dying
 * asks for none: set back to alive in the same batch, the record stays in error, waiting for its
 * client's retry, and nothing is tried again.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { harness, newVolume, volumeKey } from './engine-fixtures.js';

describe('a generation bumped while the record was dying', () => {
  it('is no retry once the record is set back to alive: it stays in error', async () => {
    const h = harness();
    const at = new Date(h.clock.now()).toISOString();
    const failed = { state: 'error' as const, code: 'InvalidParameterValue', message: 'The parameter is not valid', attempts: 1, updatedAt: at };
    await h.store.create(newVolume('data-1', { life: 'dying', status: failed }));
    h.changes.splice(0);
    await h.clock.advance(1000);

    await h.store.update<VolumeRecord>(volumeKey('data-1'), { generation: 2 });
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'alive' });
    expect(h.changes.map((change) => change.eventName)).toEqual(['MODIFY', 'MODIFY']);
    await h.watch();

    const volume = (await h.store.get(volumeKey('data-1'))) as VolumeRecord;
    expect(volume.status).toEqual(failed);
    expect(volume.retriedGeneration).toBeUndefined();
  });
});
