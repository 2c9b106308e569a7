import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../lib/engine/ports.js';
import { FakeClock } from '../../lib/memory/clock.js';
import { MemoryEbs } from '../../lib/memory/ebs.js';
import { OWNERSHIP_TAGS } from '../../lib/settings.js';

const I1 = 'i-0000000000000000a';

describe('MemoryEbs: a Multi-Attach volume attached twice to one instance', () => {
  it('refuses a second attachment to the same instance on another device as already attached, and keeps the one it has', async () => {
    const clock = new FakeClock(0);
    const ebs = new MemoryEbs({ clock, ownerTagValue: 'stack-a' });
    ebs.addInstance({ instanceId: I1, availabilityZone: 'us-east-1a' });
    const { ebsVolumeId } = await ebs.createVolume({
      clientToken: 'multi',
      availabilityZone: 'us-east-1a',
      spec: { sizeGiB: 10, volumeType: 'io2', iops: 1_000, multiAttach: true },
      tags: { [OWNERSHIP_TAGS.owner]: 'stack-a', [OWNERSHIP_TAGS.record]: 'multi' },
    });
    await clock.advance(2_000);
    await ebs.attachVolume({ ebsVolumeId, instanceId: I1, device: '/dev/sdf' });
    const error = await ebs.attachVolume({ ebsVolumeId, instanceId: I1, device: '/dev/sdg' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ kind: 'already-attached', code: 'VolumeInUse' });
    expect(ebs.volume(ebsVolumeId)?.attachments).toEqual([{ instanceId: I1, device: '/dev/sdf', state: 'attaching' }]);
    expect((await ebs.describeInstances([I1]))[0]?.deviceNames).toEqual(['/dev/xvda', '/dev/sdf']);
  });
});
