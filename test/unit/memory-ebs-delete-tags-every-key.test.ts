/**
 * EC2's DeleteTags deletes every tag key it is given from the resource, and leaves the others.
 */
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../lib/memory/clock.js';
import { MemoryEbs } from '../../lib/memory/ebs.js';
import { OWNERSHIP_TAGS } from '../../lib/settings.js';

describe('MemoryEbs DeleteTags', () => {
  it('removes each of several keys in one call, keeping the tags not named', async () => {
    const ebs = new MemoryEbs({ clock: new FakeClock(0), ownerTagValue: 'stack-a', availabilityZones: ['us-east-1a'] });
    const owned = { [OWNERSHIP_TAGS.owner]: 'stack-a', [OWNERSHIP_TAGS.record]: 't1' };
    const { ebsVolumeId } = await ebs.createVolume({
      clientToken: 't1',
      availabilityZone: 'us-east-1a',
      spec: { sizeGiB: 10, volumeType: 'gp3' },
      tags: { ...owned, team: 'storage', env: 'prod', cost: 'c1' },
    });
    await ebs.deleteTags(ebsVolumeId, ['team', 'cost', 'absent']);
    expect(ebs.volume(ebsVolumeId)?.tags).toEqual({ ...owned, env: 'prod' });
  });
});
