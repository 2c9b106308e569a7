import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../lib/memory/clock.js';
import { MemoryEbs } from '../../lib/memory/ebs.js';
import { OWNERSHIP_TAGS } from '../../lib/settings.js';

describe('MemoryEbs: listing owned volumes a page at a time while volumes go', () => {
  it('goes on after the last volume listed, so a volume deleted from an earlier page makes the next one skip none', async () => {
    const clock = new FakeClock(0);
    const ebs = new MemoryEbs({ clock, ownerTagValue: 'stack-a', availabilityZones: ['us-east-1a'] });
    const ids: string[] = [];
    for (const token of ['a', 'b', 'c', 'd']) {
      const created = await ebs.createVolume({
        clientToken: token,
        availabilityZone: 'us-east-1a',
        spec: { sizeGiB: 10, volumeType: 'gp3' },
        tags: { [OWNERSHIP_TAGS.owner]: 'stack-a', [OWNERSHIP_TAGS.record]: token },
      });
      ids.push(created.ebsVolumeId);
    }
    await clock.advance(2_000);
    const first = await ebs.listOwnedVolumes({ limit: 2 });
    expect(first.items.map((v) => v.ebsVolumeId)).toEqual(ids.slice(0, 2));
    await ebs.deleteVolume(ids[0]!);
    await clock.advance(1_000);
    expect(ebs.volume(ids[0]!)).toBeUndefined();
    const second = await ebs.listOwnedVolumes({ limit: 2, cursor: first.cursor! });
    expect(second.items.map((v) => v.ebsVolumeId)).toEqual(ids.slice(2));
    expect(second.cursor).toBeUndefined();
  });
});
