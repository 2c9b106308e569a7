import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../lib/engine/ports.js';
import { FakeClock } from '../../lib/memory/clock.js';
import { MemoryEbs } from '../../lib/memory/ebs.js';
import { OWNERSHIP_TAGS } from '../../lib/settings.js';

const I1 = 'i-0000000000000000a';

function setup() {
  const clock = new FakeClock(0);
  const ebs = new MemoryEbs({ clock, ownerTagValue: 'stack-a' });
  ebs.addInstance({ instanceId: I1, availabilityZone: 'us-east-1a' });
  return { clock, ebs };
}

async function created(ebs: MemoryEbs, token: string, spec: { sizeGiB: number; volumeType: 'gp3'; throughput?: number } = { sizeGiB: 10, volumeType: 'gp3' }) {
  const { ebsVolumeId } = await ebs.createVolume({ clientToken: token, availabilityZone: 'us-east-1a', spec, tags: { [OWNERSHIP_TAGS.owner]: 'stack-a', [OWNERSHIP_TAGS.record]: token } });
  return ebsVolumeId;
}

async function refusal(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe('MemoryEbs: volume states', () => {
  it('refuses a gp3 throughput below its minimum as EC2 does, creating nothing', async () => {
    const { ebs } = setup();
    const error = await refusal(created(ebs, 'slow', { sizeGiB: 10, volumeType: 'gp3', throughput: 100 }));
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ code: 'InvalidParameterValue', message: 'Volume throughput of 100 is too low; minimum is 125.' });
    expect(ebs.volumes()).toEqual([]);
  });

  it('reads a volume attached as in use, and none once it is deleted', async () => {
    const { clock, ebs } = setup();
    const id = await created(ebs, 'v');
    await clock.advance(2_000);
    expect(ebs.volumeState(id)).toBe('available');
    await ebs.attachVolume({ ebsVolumeId: id, instanceId: I1, device: '/dev/sdf' });
    expect(ebs.volumeState(id)).toBe('in-use');
    await ebs.detachVolume({ ebsVolumeId: id, instanceId: I1, device: '/dev/sdf' });
    await clock.advance(60_000);
    expect(ebs.volumeState(id)).toBe('available');
    await ebs.deleteVolume(id);
    expect(ebs.volumeState(id)).toBe('deleting');
    await clock.advance(60_000);
    expect(ebs.volumeState(id)).toBeUndefined();
  });

  it('takes a DeleteVolume of a volume being deleted as done, and refuses one of a volume still being created', async () => {
    const { clock, ebs } = setup();
    const creating = await created(ebs, 'new');
    const error = await refusal(ebs.deleteVolume(creating));
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ kind: 'incorrect-state', code: 'IncorrectState', message: `The volume '${creating}' is 'creating'.` });
    expect(ebs.volumeState(creating)).toBe('creating');

    await clock.advance(2_000);
    await ebs.deleteVolume(creating);
    await ebs.deleteVolume(creating);
    expect(ebs.volumeState(creating)).toBe('deleting');
    expect(ebs.calls.DeleteVolume).toBe(3);
  });

  it('refuses to change an instance, fail a volume or retag one it does not hold: a test naming one is wrong', async () => {
    const { ebs } = setup();
    expect(() => ebs.setInstanceState('i-0000000000000000f', 'stopped')).toThrow('no instance i-0000000000000000f');
    expect(() => ebs.failVolume('vol-0000000000000000f')).toThrow('no volume vol-0000000000000000f');
    expect(() => ebs.retagBehindBack('vol-0000000000000000f', {})).toThrow('no volume vol-0000000000000000f');
  });
});
