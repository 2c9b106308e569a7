/** The memory backend's EBS model takes about as long as EBS does for an empty volume (docs/local.md, "The two backends"). */
import { describe, expect, it } from 'vitest';
import { createMemoryBackend } from '../../lib/local/memory-backend.js';
import { FakeClock } from '../../lib/memory/index.js';

async function backendWithVolume() {
  const clock = new FakeClock(0);
  const backend = createMemoryBackend({ clock, ownerTagValue: 'test' });
  backend.ebs.addInstance({ instanceId: 'i-1', availabilityZone: 'us-east-1a' });
  const { ebsVolumeId } = await backend.ebs.createVolume({ clientToken: 't', availabilityZone: 'us-east-1a', spec: { sizeGiB: 8, volumeType: 'gp3' }, tags: {} });
  return { clock, ebs: backend.ebs, ebsVolumeId };
}

describe('the memory backend EBS timings', () => {
  it('takes 2 s to create a volume', async () => {
    const { clock, ebs, ebsVolumeId } = await backendWithVolume();
    await clock.advance(1_999);
    expect(ebs.volumeState(ebsVolumeId)).toBe('creating');
    await clock.advance(1);
    expect(ebs.volumeState(ebsVolumeId)).toBe('available');
  });

  it('takes 2 s to attach and 2 s to detach', async () => {
    const { clock, ebs, ebsVolumeId } = await backendWithVolume();
    await clock.advance(2_000);
    await ebs.attachVolume({ ebsVolumeId, instanceId: 'i-1', device: '/dev/sdf' });
    const attachment = () => ebs.volume(ebsVolumeId)?.attachments[0]?.state;
    await clock.advance(1_999);
    expect(attachment()).toBe('attaching');
    await clock.advance(1);
    expect(attachment()).toBe('attached');
    await ebs.detachVolume({ ebsVolumeId, instanceId: 'i-1' });
    await clock.advance(1_999);
    expect(attachment()).toBe('detaching');
    await clock.advance(1);
    expect(ebs.volumeState(ebsVolumeId)).toBe('available');
  });

  it('takes 1 s to delete a volume', async () => {
    const { clock, ebs, ebsVolumeId } = await backendWithVolume();
    await clock.advance(2_000);
    await ebs.deleteVolume(ebsVolumeId);
    await clock.advance(999);
    expect(ebs.volumeState(ebsVolumeId)).toBe('deleting');
    await clock.advance(1);
    expect(ebs.volumeState(ebsVolumeId)).toBeUndefined();
  });

  it('takes 5 s to modify a volume and 20 s more to optimize it', async () => {
    const { clock, ebs, ebsVolumeId } = await backendWithVolume();
    await clock.advance(2_000);
    await ebs.modifyVolume({ ebsVolumeId, sizeGiB: 16 });
    const state = async () => (await ebs.describeVolumeModifications([ebsVolumeId]))[0]?.state;
    await clock.advance(4_999);
    expect(await state()).toBe('modifying');
    await clock.advance(1);
    expect(await state()).toBe('optimizing');
    await clock.advance(19_999);
    expect(await state()).toBe('optimizing');
    await clock.advance(1);
    expect(await state()).toBe('completed');
  });
});
