/**
 * DescribeInstances lists an instance's block device mappings: its own devices only. A Multi-Attach
 * volume attached to two instances under different device names appears under each name on its
 * own instance, and the device name one instance uses stays free on the other.
 */
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../lib/memory/clock.js';
import { MemoryEbs } from '../../lib/memory/ebs.js';
import { OWNERSHIP_TAGS } from '../../lib/settings.js';

const I1 = 'i-0000000000000000a';
const I2 = 'i-0000000000000000b';

describe('MemoryEbs devices of instances sharing a Multi-Attach volume', () => {
  it("lists on each instance only its own device, and takes the other's device name on it", async () => {
    const clock = new FakeClock(0);
    const ebs = new MemoryEbs({ clock, ownerTagValue: 'stack-a' });
    ebs.addInstance({ instanceId: I1, availabilityZone: 'us-east-1a' });
    ebs.addInstance({ instanceId: I2, availabilityZone: 'us-east-1a' });
    const { ebsVolumeId } = await ebs.createVolume({
      clientToken: 'shared',
      availabilityZone: 'us-east-1a',
      spec: { sizeGiB: 10, volumeType: 'io2', iops: 1000, multiAttach: true },
      tags: { [OWNERSHIP_TAGS.owner]: 'stack-a', [OWNERSHIP_TAGS.record]: 'shared' },
    });
    await clock.advance(2_000);
    await ebs.attachVolume({ ebsVolumeId, instanceId: I1, device: '/dev/xvdf' });
    await ebs.attachVolume({ ebsVolumeId, instanceId: I2, device: '/dev/xvdg' });
    await clock.advance(2_000);
    expect(await ebs.describeInstances([I1, I2])).toMatchObject([
      { instanceId: I1, deviceNames: ['/dev/xvda', '/dev/xvdf'] },
      { instanceId: I2, deviceNames: ['/dev/xvda', '/dev/xvdg'] },
    ]);
    const other = await ebs.createVolume({
      clientToken: 'other',
      availabilityZone: 'us-east-1a',
      spec: { sizeGiB: 10, volumeType: 'gp3' },
      tags: { [OWNERSHIP_TAGS.owner]: 'stack-a', [OWNERSHIP_TAGS.record]: 'other' },
    });
    await clock.advance(2_000);
    await ebs.attachVolume({ ebsVolumeId: other.ebsVolumeId, instanceId: I2, device: '/dev/xvdf' });
    await clock.advance(2_000);
    expect((await ebs.describeInstances([I2]))[0]?.deviceNames).toEqual(['/dev/xvda', '/dev/xvdg', '/dev/xvdf']);
  });
});
