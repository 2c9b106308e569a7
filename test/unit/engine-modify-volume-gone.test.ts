/**
 * A ModifyVolume that EC2 answers with InvalidVolume.NotFound (the volume deleted outside the
 * system since the batch's describe) forgets the volume, as a check that finds it gone does: the
 * record ends in error with EC2's code, naming no EC2 volume and holding no observed values.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { ProviderError } from '../../lib/engine/ports.js';
import { harness, newVolume, settleAll, volumeKey, volumeOf } from './engine-fixtures.js';

describe('a ModifyVolume answered that the volume does not exist', () => {
  it('forgets the volume: error with the code, no EC2 volume id, no observed values', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await settleAll(h);
    const created = await volumeOf(h);
    expect(created).toMatchObject({ status: { state: 'available' }, ebsVolumeId: expect.any(String) });

    h.ebs.failNext('ModifyVolume', new ProviderError('not-found', 'InvalidVolume.NotFound', `The volume '${created.ebsVolumeId}' does not exist.`));
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { spec: { ...created.spec, sizeGiB: 20 }, generation: created.generation + 1 });
    await h.watch();
    await h.drain();

    expect(h.ebs.calls.ModifyVolume).toBe(1);
    const after = await volumeOf(h);
    expect(after.status).toMatchObject({ state: 'error', code: 'InvalidVolume.NotFound' });
    expect(after.ebsVolumeId).toBeUndefined();
    expect(after.observed).toBeUndefined();
  });
});
