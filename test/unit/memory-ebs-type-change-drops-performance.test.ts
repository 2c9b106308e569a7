import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../lib/memory/clock.js';
import { MemoryEbs } from '../../lib/memory/ebs.js';
import { OWNERSHIP_TAGS } from '../../lib/settings.js';

describe('MemoryEbs: a type change to a type without IOPS or throughput settings', () => {
  it('describes the volume without the IOPS and throughput of its old type once the change is applied, as EC2 describes an st1 volume', async () => {
    const clock = new FakeClock(0);
    const ebs = new MemoryEbs({ clock, ownerTagValue: 'stack-a', availabilityZones: ['us-east-1a'] });
    const { ebsVolumeId } = await ebs.createVolume({
      clientToken: 'to-st1',
      availabilityZone: 'us-east-1a',
      spec: { sizeGiB: 200, volumeType: 'gp3', iops: 4_000, throughput: 250 },
      tags: { [OWNERSHIP_TAGS.owner]: 'stack-a', [OWNERSHIP_TAGS.record]: 'to-st1' },
    });
    await clock.advance(2_000);
    await ebs.modifyVolume({ ebsVolumeId, volumeType: 'st1' });
    await clock.advance(60_000);
    const volume = ebs.volume(ebsVolumeId)!;
    expect(volume).toMatchObject({ volumeType: 'st1', sizeGiB: 200 });
    expect(volume).not.toHaveProperty('iops');
    expect(volume).not.toHaveProperty('throughput');
  });
});
