import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../lib/engine/ports.js';
import { FakeClock } from '../../lib/memory/clock.js';
import { MemoryEbs } from '../../lib/memory/ebs.js';
import { OWNERSHIP_TAGS } from '../../lib/settings.js';

describe('MemoryEbs: tags it is given, and failures cleared', () => {
  it('keeps the tags a CreateVolume or a retag behind its back gave, whatever the caller does with its object afterwards', async () => {
    const ebs = new MemoryEbs({ clock: new FakeClock(0), ownerTagValue: 'stack-a', availabilityZones: ['us-east-1a'] });
    const tags: Record<string, string> = { [OWNERSHIP_TAGS.owner]: 'stack-a', [OWNERSHIP_TAGS.record]: 'v', team: 'a' };
    const { ebsVolumeId } = await ebs.createVolume({ clientToken: 'v', availabilityZone: 'us-east-1a', spec: { sizeGiB: 10, volumeType: 'gp3' }, tags });
    tags.team = 'changed';
    expect(ebs.volume(ebsVolumeId)?.tags.team).toBe('a');
    const retag: Record<string, string> = { other: 'x' };
    ebs.retagBehindBack(ebsVolumeId, retag);
    retag.other = 'changed';
    expect(ebs.volume(ebsVolumeId)?.tags).toEqual({ other: 'x' });
  });

  it('drops the failures set and not yet made when cleared', async () => {
    const ebs = new MemoryEbs({ clock: new FakeClock(0), ownerTagValue: 'stack-a', availabilityZones: ['us-east-1a'] });
    ebs.failNext('DescribeVolumes', new ProviderError('throttled', 'RequestLimitExceeded', 'Request limit exceeded.'), 3);
    ebs.clearFaults();
    expect(await ebs.describeVolumes(['vol-00000000000000001'])).toEqual([]);
  });
});
