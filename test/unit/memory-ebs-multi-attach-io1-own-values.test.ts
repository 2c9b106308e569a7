/**
 * A ModifyVolume of a Multi-Attach io1 volume that names the volume's own size or IOPS asks for no
 * change of them (Elastic Volumes refuses a size or Provisioned IOPS change of such a volume, not a
 * request that restates what it has): the in-memory EBS takes it, as its doc comment states.
 */
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../lib/memory/clock.js';
import { MemoryEbs } from '../../lib/memory/ebs.js';
import { OWNERSHIP_TAGS } from '../../lib/settings.js';

const AZ = 'us-east-1a';

async function multiAttachIo1() {
  const clock = new FakeClock(0);
  const ebs = new MemoryEbs({ clock, ownerTagValue: 'stack-a', availabilityZones: [AZ] });
  const { ebsVolumeId } = await ebs.createVolume({
    clientToken: 'io1',
    availabilityZone: AZ,
    spec: { sizeGiB: 100, volumeType: 'io1', iops: 1000, multiAttach: true },
    tags: { [OWNERSHIP_TAGS.owner]: 'stack-a', [OWNERSHIP_TAGS.record]: 'v' },
  });
  await clock.advance(60_000);
  return { ebs, ebsVolumeId };
}

describe('MemoryEbs ModifyVolume of a Multi-Attach io1 volume restating its own values', () => {
  it('takes a request naming the size the volume has', async () => {
    const { ebs, ebsVolumeId } = await multiAttachIo1();
    await ebs.modifyVolume({ ebsVolumeId, sizeGiB: 100 });
    expect(await ebs.describeVolumeModifications([ebsVolumeId])).toMatchObject([{ state: 'modifying', targetSizeGiB: 100, targetVolumeType: 'io1', targetIops: 1000 }]);
  });

  it('takes a request naming the IOPS the volume has', async () => {
    const { ebs, ebsVolumeId } = await multiAttachIo1();
    await ebs.modifyVolume({ ebsVolumeId, iops: 1000 });
    expect(await ebs.describeVolumeModifications([ebsVolumeId])).toMatchObject([{ state: 'modifying', targetSizeGiB: 100, targetVolumeType: 'io1', targetIops: 1000 }]);
  });

  it('takes a request naming its type, size and IOPS all as they are', async () => {
    const { ebs, ebsVolumeId } = await multiAttachIo1();
    await ebs.modifyVolume({ ebsVolumeId, volumeType: 'io1', sizeGiB: 100, iops: 1000 });
    expect(await ebs.describeVolumeModifications([ebsVolumeId])).toMatchObject([{ state: 'modifying', targetSizeGiB: 100, targetVolumeType: 'io1', targetIops: 1000 }]);
  });
});
