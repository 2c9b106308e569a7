import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../lib/memory/clock.js';
import { MemoryEbs } from '../../lib/memory/ebs.js';
import { OWNERSHIP_TAGS } from '../../lib/settings.js';

const I1 = 'i-0000000000000000a';

async function setup(encrypted?: boolean) {
  const clock = new FakeClock(0);
  const ebs = new MemoryEbs({ clock, ownerTagValue: 'stack-a' });
  ebs.addInstance({ instanceId: I1, availabilityZone: 'us-east-1a' });
  const { ebsVolumeId } = await ebs.createVolume({
    clientToken: 'v',
    availabilityZone: 'us-east-1a',
    spec: { sizeGiB: 10, volumeType: 'gp3', ...(encrypted !== undefined ? { encrypted } : {}) },
    tags: { [OWNERSHIP_TAGS.owner]: 'stack-a', [OWNERSHIP_TAGS.record]: 'v', team: 'a' },
  });
  await clock.advance(2_000);
  return { clock, ebs, ebsVolumeId };
}

describe('MemoryEbs: what it describes', () => {
  it('describes a volume created encrypted as encrypted, and one created without saying as not', async () => {
    const encrypted = await setup(true);
    expect(encrypted.ebs.volume(encrypted.ebsVolumeId)?.encrypted).toBe(true);
    expect((await encrypted.ebs.describeVolumes([encrypted.ebsVolumeId]))[0]?.encrypted).toBe(true);
    const plain = await setup();
    expect(plain.ebs.volume(plain.ebsVolumeId)?.encrypted).toBe(false);
  });

  it('hands out a description that is the caller\'s own: changing its tags or attachments changes nothing in EBS', async () => {
    const { ebs, ebsVolumeId } = await setup();
    await ebs.attachVolume({ ebsVolumeId, instanceId: I1, device: '/dev/sdf' });
    const [described] = await ebs.describeVolumes([ebsVolumeId]);
    described!.tags.team = 'changed';
    delete described!.tags[OWNERSHIP_TAGS.owner];
    described!.attachments[0]!.device = '/dev/sdz';
    expect(ebs.volume(ebsVolumeId)).toMatchObject({
      tags: { [OWNERSHIP_TAGS.owner]: 'stack-a', [OWNERSHIP_TAGS.record]: 'v', team: 'a' },
      attachments: [{ instanceId: I1, device: '/dev/sdf' }],
    });
    expect(await ebs.findOwnedVolumes('v')).toHaveLength(1);
  });

  it('overwrites the value of a tag key the volume already has, as CreateTags does', async () => {
    const { ebs, ebsVolumeId } = await setup();
    await ebs.createTags(ebsVolumeId, { team: 'b', env: 'prod' });
    expect(ebs.volume(ebsVolumeId)?.tags).toEqual({ [OWNERSHIP_TAGS.owner]: 'stack-a', [OWNERSHIP_TAGS.record]: 'v', team: 'b', env: 'prod' });
  });
});
