/**
 * A CreateVolume repeated under its recorded token answers the one volume that token made, as
 * EC2 holds it now. Attached meanwhile (outside this system), the answer says `in-use`: the
 * write of that answer gives the record the volume and `in-use` ("retried volume already exists,
 * attached", docs/state-machines.md), not a `creating` that only a later check would end.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord, VolumeState } from '../../lib/domain/records.js';
import { harness, INSTANCE, newVolume, volumeKey, runFor } from './engine-fixtures.js';

describe('a repeated CreateVolume whose volume was attached meanwhile', () => {
  it('after the client retries the record, the write of its answer names the volume and says in-use', async () => {
    const h = harness({ config: { maxAttempts: 2 } });
    h.loseCreateAnswers(2);
    await h.store.create(newVolume('data-1'));
    await runFor(h, 30);
    const failed = (await h.store.get(volumeKey('data-1'))) as VolumeRecord;
    expect(failed.status).toMatchObject({ state: 'error', code: 'RequestTimeout' });
    expect(failed.ebsVolumeId).toBeUndefined();
    const [made] = h.ebs.volumes();
    expect(made!.state).toBe('available');
    await h.ebs.attachVolume({ ebsVolumeId: made!.ebsVolumeId, instanceId: INSTANCE, device: '/dev/sdf' });
    await runFor(h, 30);
    expect(h.ebs.volume(made!.ebsVolumeId)!.state).toBe('in-use');

    // Every write of the record from the client's retry on: the first to name the volume.
    const writes: { state: VolumeState; ebsVolumeId?: string }[] = [];
    h.store.onChange(({ newRecord: record }) => {
      if (record?.kind === 'volume' && record.volumeId === 'data-1') writes.push({ state: record.status.state, ...(record.ebsVolumeId ? { ebsVolumeId: record.ebsVolumeId } : {}) });
    });
    const creates = h.ebs.calls.CreateVolume;
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { generation: 2 });
    await runFor(h, 30);

    expect(h.ebs.calls.CreateVolume).toBe(creates + 1);
    expect(h.ebs.volumes()).toHaveLength(1);
    expect(writes.find((w) => w.ebsVolumeId !== undefined)).toEqual({ state: 'in-use', ebsVolumeId: made!.ebsVolumeId });
    expect((await h.store.get(volumeKey('data-1')))!.status.state).toBe('in-use');
  });
});
