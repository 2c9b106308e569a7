/**
 * `failVolume` puts a volume in state `error` (its doc comment; EC2's VolumeState `error`): a volume
 * that fails while attached is described in state error, not in use, its attachment still listed.
 */
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../lib/memory/clock.js';
import { MemoryEbs } from '../../lib/memory/ebs.js';
import { createOwnedVolume } from './memory-ebs-fixtures.js';

describe('MemoryEbs volume failing while attached', () => {
  it('reads error, with its attachment', async () => {
    const clock = new FakeClock(0);
    const ebs = new MemoryEbs({ clock, ownerTagValue: 'stack-a' });
    ebs.addInstance({ instanceId: 'i-0000000000000000a', availabilityZone: 'us-east-1a' });
    const ebsVolumeId = await createOwnedVolume(ebs);
    await clock.advance(2_000);
    await ebs.attachVolume({ ebsVolumeId, instanceId: 'i-0000000000000000a', device: '/dev/xvdf' });
    await clock.advance(2_000);
    expect(ebs.volumeState(ebsVolumeId)).toBe('in-use');
    ebs.failVolume(ebsVolumeId);
    expect(ebs.volumeState(ebsVolumeId)).toBe('error');
    expect(await ebs.describeVolumes([ebsVolumeId])).toMatchObject([{ state: 'error', attachments: [{ instanceId: 'i-0000000000000000a', state: 'attached' }] }]);
  });
});
