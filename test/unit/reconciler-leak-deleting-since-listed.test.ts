/**
 * Of the owned volumes no record owns, the reconciler reports those EC2 still holds: one listed
 * available, that EC2 describes as deleting by the time it is asked again (its owner deleted it
 * meanwhile), is on its way out, as one listed deleting is, and is no leak.
 */
import { describe, expect, it } from 'vitest';
import type { ProviderVolume } from '../../lib/engine/ports.js';
import { providerOver } from './engine-fixtures.js';
import { MINUTE, reconcilerWorld } from './reconciler-fixtures.js';

describe('reconciler: an owned volume no record owns, deleting by the time it is described again', () => {
  it('is not reported leaked; one still available beside it is', async () => {
    // Listed available; described again, EC2 is deleting it.
    let goingId = '';
    const deletingNow = (volume: ProviderVolume): ProviderVolume => (volume.ebsVolumeId === goingId ? { ...volume, state: 'deleting' } : volume);
    const { clock, ebs, reconciler, owned } = reconcilerWorld({ provider: (ebs) => providerOver(ebs, { describeVolumes: async (ids) => (await ebs.describeVolumes(ids)).map(deletingNow) }) });
    const leaked = await owned('nobody');
    const going = await owned('going');
    goingId = going.ebsVolumeId;
    await clock.advance(MINUTE);
    expect((await ebs.listOwnedVolumes({ limit: 10 })).items.map((v) => [v.ebsVolumeId, v.state])).toEqual(
      expect.arrayContaining([[going.ebsVolumeId, 'available'], [leaked.ebsVolumeId, 'available']]),
    );
    expect(await reconciler.run()).toMatchObject({ leaked: [leaked.ebsVolumeId], leakCheckComplete: true });
  });
});
