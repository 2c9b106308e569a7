/**
 * A dying volume record whose DeleteVolume EC2 accepted stays `deleting` while EC2 lists the volume
 * `deleting`: it goes only once EC2 has finished deleting (docs/state-machines.md, `observed-deleted`).
 */
import { describe, expect, it } from 'vitest';
import { harness, newVolume, volumeKey, volumeOf } from './engine-fixtures.js';

describe('a check of a volume record while EC2 deletes its volume', () => {
  it('keeps the record deleting until EC2 no longer lists the volume, then removes it', async () => {
    const h = harness({ ebsTimings: { delete: 120_000 } });
    await h.store.create(newVolume('data-1'));
    await h.executor.run(h.batchOf(h.op('create-volume', volumeKey('data-1'))));
    await h.settle(30_000);
    const { ebsVolumeId } = await volumeOf(h);
    await h.store.update(volumeKey('data-1'), { life: 'dying' });
    await h.executor.run(h.batchOf(h.op('delete-volume', volumeKey('data-1'))));
    expect((await volumeOf(h)).status.state).toBe('deleting');

    await h.clock.advance(60_000);
    expect((await h.ebs.describeVolumes([ebsVolumeId!]))[0]?.state).toBe('deleting');
    await h.executor.run(h.batchOf(h.op('check-volume', volumeKey('data-1'))));
    expect(await h.store.get(volumeKey('data-1'))).toMatchObject({ life: 'dying', status: { state: 'deleting' } });

    await h.clock.advance(61_000);
    await h.executor.run(h.batchOf(h.op('check-volume', volumeKey('data-1'))));
    expect(await h.store.get(volumeKey('data-1'))).toBeUndefined();
  });
});
