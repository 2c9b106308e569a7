/**
 * A ModifyVolume whose answer was lost is looked for before the spec EC2 holds is taken as held:
 * only a modification EC2 still makes (`modifying`, `optimizing`) can take the volume elsewhere.
 * One EC2 accepted and then failed leaves the volume as it was, so once the client has put the
 * spec back to what EC2 holds, the record is at rest, not waiting for that failed modification.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { ProviderError } from '../../lib/engine/ports.js';
import { harness, newVolume, volumeKey, volumeOf, runFor } from './engine-fixtures.js';

const KEY = volumeKey('data-1');

describe('a ModifyVolume whose answer was lost, which EC2 then failed', () => {
  it('with the spec put back to what EC2 holds: the record comes to rest, with no further ModifyVolume', async () => {
    const h = harness({ ebsTimings: { modify: 1000, optimize: 1000 } });
    await h.store.create(newVolume('data-1'));
    await runFor(h, 10, 5000);
    const made = await volumeOf(h);
    expect(made.status.state).toBe('available');

    // The next ModifyVolume is accepted, failed by EC2, and its answer lost.
    const modify = h.ebs.modifyVolume.bind(h.ebs);
    h.ebs.modifyVolume = async (request) => {
      h.ebs.modifyVolume = modify;
      await modify(request);
      h.ebs.failModification(request.ebsVolumeId, 'The volume could not be modified.');
      throw new ProviderError('transient', 'RequestTimeout', 'ModifyVolume timed out');
    };
    await h.store.update<VolumeRecord>(KEY, { spec: { ...made.spec, throughput: 250 }, generation: 2 });
    await h.watch();
    await h.drain();
    expect(h.ebs.calls.ModifyVolume).toBe(1);
    expect((await volumeOf(h)).modificationSentAt).toBeDefined();

    await h.store.update<VolumeRecord>(KEY, { spec: made.spec, generation: 3 });
    await runFor(h, 120, 5000);

    const volume = await volumeOf(h);
    expect(h.ebs.calls.ModifyVolume).toBe(1);
    expect(h.ebs.volume(volume.ebsVolumeId!)).toMatchObject({ sizeGiB: 10, throughput: made.spec.throughput ?? 125 });
    expect(volume.status).toMatchObject({ state: 'available' });
    expect(volume.status).not.toHaveProperty('code');
    expect(volume).not.toHaveProperty('modificationSentAt');
  });
});
