import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../lib/memory/clock.js';
import { MemoryEbs } from '../../lib/memory/ebs.js';
import { OWNERSHIP_TAGS } from '../../lib/settings.js';

const I1 = 'i-0000000000000000a';

describe('MemoryEbs: ids named more than once in a describe', () => {
  it('lists each volume, modification and instance once, as the EC2 adapter asks for them (each id once, by filter)', async () => {
    const clock = new FakeClock(0);
    const ebs = new MemoryEbs({ clock, ownerTagValue: 'stack-a' });
    ebs.addInstance({ instanceId: I1, availabilityZone: 'us-east-1a' });
    const { ebsVolumeId } = await ebs.createVolume({
      clientToken: 'v',
      availabilityZone: 'us-east-1a',
      spec: { sizeGiB: 10, volumeType: 'gp3' },
      tags: { [OWNERSHIP_TAGS.owner]: 'stack-a', [OWNERSHIP_TAGS.record]: 'v' },
    });
    await clock.advance(2_000);
    await ebs.modifyVolume({ ebsVolumeId, sizeGiB: 20 });
    expect((await ebs.describeVolumes([ebsVolumeId, ebsVolumeId])).map((v) => v.ebsVolumeId)).toEqual([ebsVolumeId]);
    expect((await ebs.describeVolumeModifications([ebsVolumeId, ebsVolumeId])).map((m) => m.ebsVolumeId)).toEqual([ebsVolumeId]);
    expect((await ebs.describeInstances([I1, I1])).map((i) => i.instanceId)).toEqual([I1]);
    expect(ebs.calls).toMatchObject({ DescribeVolumes: 1, DescribeVolumesModifications: 1, DescribeInstances: 1 });
  });
});
