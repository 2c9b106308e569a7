import { describe, expect, it } from 'vitest';
import type { VolumeSpec } from '../../lib/domain/records.js';
import { FakeClock } from '../../lib/memory/clock.js';
import { MemoryEbs } from '../../lib/memory/ebs.js';
import { OWNERSHIP_TAGS } from '../../lib/settings.js';

function setup() {
  const clock = new FakeClock(0);
  const ebs = new MemoryEbs({ clock, ownerTagValue: 'stack-a', availabilityZones: ['us-east-1a'] });
  const create = async (token: string, spec: VolumeSpec) =>
    (await ebs.createVolume({ clientToken: token, availabilityZone: 'us-east-1a', spec, tags: { [OWNERSHIP_TAGS.owner]: 'stack-a', [OWNERSHIP_TAGS.record]: token } })).ebsVolumeId;
  return { clock, ebs, create };
}

describe('MemoryEbs: requests at the bounds EC2 allows', () => {
  it("creates a volume of each type at its largest size (EC2's CreateVolume Size ranges)", async () => {
    const { ebs, create } = setup();
    const largest: VolumeSpec[] = [
      { sizeGiB: 16_384, volumeType: 'gp2' },
      { sizeGiB: 65_536, volumeType: 'gp3' },
      { sizeGiB: 16_384, volumeType: 'io1', iops: 1_000 },
      { sizeGiB: 65_536, volumeType: 'io2', iops: 1_000 },
      { sizeGiB: 16_384, volumeType: 'st1' },
      { sizeGiB: 16_384, volumeType: 'sc1' },
      { sizeGiB: 1_024, volumeType: 'standard' },
    ];
    for (const spec of largest) await create(`max-${spec.volumeType}`, spec);
    expect(ebs.volumes().map(({ volumeType, sizeGiB }) => [volumeType, sizeGiB])).toEqual(largest.map(({ volumeType, sizeGiB }) => [volumeType, sizeGiB]));
  });

  it('creates volumes at the highest IOPS and throughput each type takes, at the size their ratios need', async () => {
    const { ebs, create } = setup();
    const highest: VolumeSpec[] = [
      { sizeGiB: 160, volumeType: 'gp3', iops: 80_000 },
      { sizeGiB: 16, volumeType: 'gp3', iops: 8_000, throughput: 2_000 },
      { sizeGiB: 1_280, volumeType: 'io1', iops: 64_000 },
      { sizeGiB: 256, volumeType: 'io2', iops: 256_000 },
    ];
    for (const [index, spec] of highest.entries()) await create(`top-${index}`, spec);
    expect(ebs.volumes().map(({ volumeType, iops, throughput }) => ({ volumeType, iops, throughput }))).toEqual([
      { volumeType: 'gp3', iops: 80_000, throughput: 125 },
      { volumeType: 'gp3', iops: 8_000, throughput: 2_000 },
      { volumeType: 'io1', iops: 64_000, throughput: undefined },
      { volumeType: 'io2', iops: 256_000, throughput: undefined },
    ]);
  });

  it('takes a ModifyVolume whose size equals the present one (Size: greater than or equal to the existing size)', async () => {
    const { clock, ebs, create } = setup();
    const id = await create('same-size', { sizeGiB: 100, volumeType: 'gp3' });
    await clock.advance(2_000);
    await ebs.modifyVolume({ ebsVolumeId: id, sizeGiB: 100, iops: 4_000 });
    expect(await ebs.describeVolumeModifications([id])).toMatchObject([{ state: 'modifying', targetSizeGiB: 100, targetIops: 4_000 }]);
  });

  it('lets a volume carry exactly 50 tags, the most EC2 allows a resource', async () => {
    const { clock, ebs, create } = setup();
    const id = await create('tags', { sizeGiB: 10, volumeType: 'gp3' });
    await clock.advance(2_000);
    // 2 ownership tags and 48 more.
    await ebs.createTags(id, Object.fromEntries(Array.from({ length: 48 }, (_, i) => [`k${i}`, 'v'])));
    expect(Object.keys(ebs.volume(id)!.tags)).toHaveLength(50);
  });
});
