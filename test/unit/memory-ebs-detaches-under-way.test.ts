import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../lib/memory/clock.js';
import { MemoryEbs } from '../../lib/memory/ebs.js';
import { OWNERSHIP_TAGS } from '../../lib/settings.js';

const I1 = 'i-0000000000000000a';
const I2 = 'i-0000000000000000b';

/** EBS with 2 s detaches, two instances in one zone, and a Multi-Attach io2 volume attached to both. */
async function attachedToBoth() {
  const clock = new FakeClock(0);
  const ebs = new MemoryEbs({ clock, ownerTagValue: 'stack-a' });
  for (const instanceId of [I1, I2]) ebs.addInstance({ instanceId, availabilityZone: 'us-east-1a' });
  const { ebsVolumeId } = await ebs.createVolume({
    clientToken: 'multi',
    availabilityZone: 'us-east-1a',
    spec: { sizeGiB: 10, volumeType: 'io2', iops: 1_000, multiAttach: true },
    tags: { [OWNERSHIP_TAGS.owner]: 'stack-a', [OWNERSHIP_TAGS.record]: 'multi' },
  });
  await clock.advance(2_000);
  await ebs.attachVolume({ ebsVolumeId, instanceId: I1, device: '/dev/sdf' });
  await ebs.attachVolume({ ebsVolumeId, instanceId: I2, device: '/dev/sdf' });
  await clock.advance(2_000);
  return { clock, ebs, ebsVolumeId };
}

describe('MemoryEbs: detaches under way', () => {
  it('ends each detach of a Multi-Attach volume when its own time comes, not when another one on the same volume ends', async () => {
    const { clock, ebs, ebsVolumeId } = await attachedToBoth();
    await ebs.detachVolume({ ebsVolumeId, instanceId: I1 });
    await clock.advance(1_000);
    await ebs.detachVolume({ ebsVolumeId, instanceId: I2 });
    await clock.advance(1_000);
    // The first detach has taken its 2 s; the second has 1 s to go.
    expect(ebs.volume(ebsVolumeId)?.attachments).toEqual([{ instanceId: I2, device: '/dev/sdf', state: 'detaching' }]);
    expect(ebs.volumeState(ebsVolumeId)).toBe('in-use');
    await clock.advance(1_000);
    expect(ebs.volume(ebsVolumeId)?.attachments).toEqual([]);
    expect(ebs.volumeState(ebsVolumeId)).toBe('available');
  });

  it('leaves a detach under way as it is when a plain DetachVolume asks again: it ends when the first one would have', async () => {
    const { clock, ebs, ebsVolumeId } = await attachedToBoth();
    await ebs.detachVolume({ ebsVolumeId, instanceId: I1 });
    await clock.advance(1_500);
    await ebs.detachVolume({ ebsVolumeId, instanceId: I1 });
    await clock.advance(500);
    expect(ebs.volume(ebsVolumeId)?.attachments).toEqual([{ instanceId: I2, device: '/dev/sdf', state: 'attached' }]);
    expect(ebs.calls.DetachVolume).toBe(2);
  });
});
