import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../lib/engine/ports.js';
import { FakeClock } from '../../lib/memory/clock.js';
import { MemoryEbs } from '../../lib/memory/ebs.js';
import { OWNERSHIP_TAGS } from '../../lib/settings.js';

const I1 = 'i-0000000000000000a';

async function volumeIn(ebs: MemoryEbs, token: string) {
  const { ebsVolumeId } = await ebs.createVolume({
    clientToken: token,
    availabilityZone: 'us-east-1a',
    spec: { sizeGiB: 10, volumeType: 'gp3' },
    tags: { [OWNERSHIP_TAGS.owner]: 'stack-a', [OWNERSHIP_TAGS.record]: token, team: 'a' },
  });
  return ebsVolumeId;
}

describe('MemoryEbs: instances, timings and tags as a test sets them', () => {
  it('adds an instance in the state and with the device names it is given', async () => {
    const clock = new FakeClock(0);
    const ebs = new MemoryEbs({ clock, ownerTagValue: 'stack-a' });
    ebs.addInstance({ instanceId: I1, availabilityZone: 'us-east-1a', state: 'pending', deviceNames: ['/dev/sda1'] });
    expect(await ebs.describeInstances([I1])).toEqual([{ instanceId: I1, availabilityZone: 'us-east-1a', state: 'pending', deviceNames: ['/dev/sda1'] }]);
    const id = await volumeIn(ebs, 'v');
    await clock.advance(2_000);
    const pending = await ebs.attachVolume({ ebsVolumeId: id, instanceId: I1, device: '/dev/xvda' }).catch((e: unknown) => e);
    expect(pending).toBeInstanceOf(ProviderError);
    expect(pending).toMatchObject({ code: 'IncorrectInstanceState' });
    ebs.setInstanceState(I1, 'running');
    const taken = await ebs.attachVolume({ ebsVolumeId: id, instanceId: I1, device: '/dev/sda1' }).catch((e: unknown) => e);
    expect(taken).toMatchObject({ kind: 'device-in-use', code: 'InvalidParameterValue' });
    // The default root device is not there: the instance has only the names it was given.
    await ebs.attachVolume({ ebsVolumeId: id, instanceId: I1, device: '/dev/xvda' });
    expect(ebs.volume(id)?.attachments).toEqual([{ instanceId: I1, device: '/dev/xvda', state: 'attaching' }]);
  });

  it('takes each step its own duration: an attach as long as attaches take, a detach as long as detaches take', async () => {
    const clock = new FakeClock(0);
    const ebs = new MemoryEbs({ clock, ownerTagValue: 'stack-a', timings: { create: 0, attach: 3_000, detach: 1_000 } });
    ebs.addInstance({ instanceId: I1, availabilityZone: 'us-east-1a' });
    const id = await volumeIn(ebs, 'v');
    await ebs.attachVolume({ ebsVolumeId: id, instanceId: I1, device: '/dev/sdf' });
    await clock.advance(2_999);
    expect(ebs.volume(id)?.attachments[0]?.state).toBe('attaching');
    await clock.advance(1);
    expect(ebs.volume(id)?.attachments[0]?.state).toBe('attached');
    await ebs.detachVolume({ ebsVolumeId: id, instanceId: I1 });
    await clock.advance(1_000);
    expect(ebs.volume(id)?.attachments).toEqual([]);
  });

  it('replaces all of a volume\'s tags when retagged behind its back, the ones it had dropped', async () => {
    const ebs = new MemoryEbs({ clock: new FakeClock(0), ownerTagValue: 'stack-a', availabilityZones: ['us-east-1a'] });
    const id = await volumeIn(ebs, 'v');
    ebs.retagBehindBack(id, { other: 'x' });
    expect(ebs.volume(id)?.tags).toEqual({ other: 'x' });
    expect(await ebs.findOwnedVolumes('v')).toEqual([]);
  });
});
