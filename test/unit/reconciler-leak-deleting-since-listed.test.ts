/**
 * Of the owned volumes no record owns, the reconciler reports those EC2 still holds: one listed
 * available, that EC2 describes as deleting by the time it is asked again (its owner deleted it
 * meanwhile), is on its way out, as one listed deleting is, and is no leak.
 */
import { describe, expect, it } from 'vitest';
import { Reconciler } from '../../lib/engine/reconciler.js';
import type { ProviderVolume } from '../../lib/engine/ports.js';
import { FakeClock, MemoryEbs, MemoryOperationQueue, MemoryRecordStore, RecordingMetrics, silentLog } from '../../lib/memory/index.js';
import { OWNERSHIP_TAGS } from '../../lib/settings.js';
import { providerOver } from './engine-fixtures.js';

const OWNER = 'stack-test';

describe('reconciler: an owned volume no record owns, deleting by the time it is described again', () => {
  it('is not reported leaked; one still available beside it is', async () => {
    const clock = new FakeClock(Date.parse('2026-03-01T00:00:00Z'));
    const ebs = new MemoryEbs({ clock, ownerTagValue: OWNER, availabilityZones: ['us-east-1a'] });
    const owned = (record: string) =>
      ebs.createVolume({ clientToken: record, availabilityZone: 'us-east-1a', spec: { sizeGiB: 10, volumeType: 'gp3' }, tags: { [OWNERSHIP_TAGS.owner]: OWNER, [OWNERSHIP_TAGS.record]: record } });
    const leaked = await owned('nobody');
    const going = await owned('going');
    await clock.advance(60_000);
    // Listed available; described again, EC2 is deleting it.
    const deletingNow = (volume: ProviderVolume): ProviderVolume => (volume.ebsVolumeId === going.ebsVolumeId ? { ...volume, state: 'deleting' } : volume);
    const provider = providerOver(ebs, { describeVolumes: async (ids) => (await ebs.describeVolumes(ids)).map(deletingNow) });
    const metrics = new RecordingMetrics();
    const reconciler = new Reconciler({ store: new MemoryRecordStore(), queue: new MemoryOperationQueue({ clock }), provider, clock, metrics, log: silentLog, config: { ownerTagValue: OWNER } });
    expect((await ebs.listOwnedVolumes({ limit: 10 })).items.map((v) => [v.ebsVolumeId, v.state])).toEqual(
      expect.arrayContaining([[going.ebsVolumeId, 'available'], [leaked.ebsVolumeId, 'available']]),
    );
    expect(await reconciler.run()).toMatchObject({ leaked: [leaked.ebsVolumeId], leakCheckComplete: true });
  });
});
