/**
 * A volume in error retried by its client and then deleted before the retry ran: its look finds
 * the EC2 volume gone (deleted outside meanwhile). Nothing is created for a record on its way out,
 * and its status does not say a new volume is coming; the record goes without an EC2 call.
 */
import { describe, expect, it } from 'vitest';
import { VolumeService } from '../../lib/api/service.js';
import { harness, newVolume, volumeKey, volumeOf } from './engine-fixtures.js';

const KEY = volumeKey('data-1');

describe('executor: a retried volume deleted before its retry ran, its EC2 volume gone', () => {
  it('says the volume no longer exists, promises no new one, and is removed without creating or deleting anything', async () => {
    const h = harness();
    const service = new VolumeService({ store: h.store, clock: h.clock });
    await h.store.create(newVolume('data-1'));
    await h.watch();
    await h.settle(10_000);
    const { ebsVolumeId } = await volumeOf(h);
    // Its storage fails: in error, the id kept.
    h.ebs.failVolume(ebsVolumeId!);
    await h.executor.run(h.batchOf(h.op('check-volume', KEY)));
    expect(await volumeOf(h)).toMatchObject({ ebsVolumeId, status: { state: 'error', code: 'VolumeError' } });

    await service.retryVolume('data-1');
    await service.deleteVolume('data-1');
    expect(await volumeOf(h)).toMatchObject({ life: 'dying', ebsVolumeId, status: { state: 'pending' } });
    h.ebs.deleteBehindBack(ebsVolumeId!);
    h.changes.length = 0;

    await h.executor.run(h.batchOf(h.op('check-volume', KEY)));
    const looked = await volumeOf(h);
    expect(looked.status).toMatchObject({ state: 'pending', message: `volume ${ebsVolumeId} no longer exists in EC2` });
    expect(looked.ebsVolumeId).toBeUndefined();

    const creates = h.ebs.calls.CreateVolume;
    await h.watch();
    await h.settle(60_000);
    expect(await h.store.get(KEY)).toBeUndefined();
    expect(h.ebs.calls.CreateVolume).toBe(creates);
    expect(h.ebs.calls.DeleteVolume).toBe(0);
  });
});
