import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../lib/memory/clock.js';
import { MemoryEbs } from '../../lib/memory/ebs.js';
import { OWNERSHIP_TAGS } from '../../lib/settings.js';

describe('MemoryEbs: making a modification fail', () => {
  it('refuses once the modification is optimizing or completed, and the volume keeps its new configuration', async () => {
    const clock = new FakeClock(0);
    const ebs = new MemoryEbs({ clock, ownerTagValue: 'stack-a', availabilityZones: ['us-east-1a'] });
    const { ebsVolumeId } = await ebs.createVolume({
      clientToken: 'grow',
      availabilityZone: 'us-east-1a',
      spec: { sizeGiB: 10, volumeType: 'gp3' },
      tags: { [OWNERSHIP_TAGS.owner]: 'stack-a', [OWNERSHIP_TAGS.record]: 'grow' },
    });
    await clock.advance(2_000);
    await ebs.modifyVolume({ ebsVolumeId, sizeGiB: 20 });
    await clock.advance(60_000);
    expect(() => ebs.failModification(ebsVolumeId, 'too late')).toThrow(`no modification of ${ebsVolumeId} is modifying`);
    await clock.advance(300_000);
    expect(() => ebs.failModification(ebsVolumeId, 'too late')).toThrow(`no modification of ${ebsVolumeId} is modifying`);
    const [modification] = await ebs.describeVolumeModifications([ebsVolumeId]);
    expect(modification).toMatchObject({ state: 'completed', targetSizeGiB: 20 });
    expect(modification).not.toHaveProperty('statusMessage');
    expect(ebs.volume(ebsVolumeId)?.sizeGiB).toBe(20);
  });
});
