/**
 * A dying volume record whose EC2 volume is not known to be its own (no CreateVolume request of its
 * own: its item copied in the table from another record's) is deleted only once this batch's
 * DescribeVolumes shows whose the volume is. When that describe fails, no DeleteVolume is sent:
 * the volume may be another record's.
 */
import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../lib/engine/ports.js';
import { harness, newVolume, settleAll, volumeKey, volumeOf } from './engine-fixtures.js';

describe('a dying copy of a volume record whose DescribeVolumes fails', () => {
  it("sends no DeleteVolume for the volume it names; once EC2 answers, the copy goes and the original's volume stays", async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await settleAll(h);
    const original = await volumeOf(h, 'data-1');
    expect(original).toMatchObject({ status: { state: 'available' }, ebsVolumeId: expect.any(String) });
    // The item duplicated in the table under data-2 (the console's "duplicate item"), then deleted.
    h.store.putRaw({ ...original, volumeId: 'data-2', life: 'dying' });
    h.queue.purge();
    const describes = h.ebs.calls.DescribeVolumes ?? 0;
    h.ebs.failNext('DescribeVolumes', new ProviderError('transient', 'InternalError', 'EC2 had an internal error'));
    await h.executor.run(h.batchOf(h.op('delete-volume', volumeKey('data-2'))));

    expect(h.ebs.calls.DescribeVolumes).toBe(describes + 1);
    expect(h.ebs.calls.DeleteVolume ?? 0).toBe(0);
    expect(h.ebs.volume(original.ebsVolumeId!)).toMatchObject({ state: 'available' });
    expect((await volumeOf(h, 'data-2')).status).toMatchObject({ code: 'InternalError' });

    await h.settle(300_000, 5_000);
    expect(h.ebs.calls.DeleteVolume ?? 0).toBe(0);
    expect(await h.store.get(volumeKey('data-2'))).toBeUndefined();
    expect(h.ebs.volume(original.ebsVolumeId!)).toMatchObject({ state: 'available' });
    expect(await volumeOf(h, 'data-1')).toMatchObject({ status: { state: 'available' }, ebsVolumeId: original.ebsVolumeId });
  });
});
