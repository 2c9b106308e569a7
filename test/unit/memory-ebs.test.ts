import { describe, expect, it } from 'vitest';
import { ProviderError, type CreateVolumeRequest } from '../../lib/engine/ports.js';
import type { VolumeSpec } from '../../lib/domain/records.js';
import { FakeClock } from '../../lib/memory/clock.js';
import { MemoryEbs } from '../../lib/memory/ebs.js';
import { OWNERSHIP_TAGS } from '../../lib/settings.js';
import { toProviderError } from '../../lib/aws/ec2-errors.js';
import { realEc2Error } from '../support/ec2-errors.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const I1 = 'i-0000000000000000a';
const I2 = 'i-0000000000000000b';
const I_OTHER_AZ = 'i-0000000000000000c';

function setup() {
  const clock = new FakeClock(0);
  const ebs = new MemoryEbs({ clock, ownerTagValue: 'stack-a' });
  ebs.addInstance({ instanceId: I1, availabilityZone: 'us-east-1a' });
  ebs.addInstance({ instanceId: I2, availabilityZone: 'us-east-1a', maxAttachments: 1 });
  ebs.addInstance({ instanceId: I_OTHER_AZ, availabilityZone: 'us-east-1b' });
  return { clock, ebs };
}

const request = (token: string, overrides: Partial<CreateVolumeRequest> = {}): CreateVolumeRequest => ({
  clientToken: token,
  availabilityZone: 'us-east-1a',
  spec: { sizeGiB: 10, volumeType: 'gp3' },
  tags: { [OWNERSHIP_TAGS.owner]: 'stack-a', [OWNERSHIP_TAGS.record]: token },
  ...overrides,
});

async function expectCode(promise: Promise<unknown>, kind: string, code: string, message?: RegExp) {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(ProviderError);
  expect(error).toMatchObject({ kind, code });
  if (message) expect((error as Error).message).toMatch(message);
}

async function availableVolume(clock: FakeClock, ebs: MemoryEbs, token: string, overrides: Partial<CreateVolumeRequest> = {}) {
  const { ebsVolumeId } = await ebs.createVolume(request(token, overrides));
  await clock.advance(2_000);
  return ebsVolumeId;
}

describe('MemoryEbs', () => {
  it('sets and removes tags as EC2 does: repeats are harmless, 50 tags at most, a missing volume is not found', async () => {
    const { clock, ebs } = setup();
    const id = await availableVolume(clock, ebs, 't-tags');
    await ebs.createTags(id, { team: 'a', env: 'dev' });
    await ebs.createTags(id, { team: 'a', env: 'dev' });
    await ebs.deleteTags(id, ['env', 'absent']);
    await ebs.deleteTags(id, ['env']);
    expect(ebs.volume(id)?.tags).toEqual({ [OWNERSHIP_TAGS.owner]: 'stack-a', [OWNERSHIP_TAGS.record]: 't-tags', team: 'a' });
    const many = Object.fromEntries(Array.from({ length: 48 }, (_, i) => [`k${i}`, 'v']));
    await expectCode(ebs.createTags(id, many), 'limit-exceeded', 'TagLimitExceeded');
    expect(Object.keys(ebs.volume(id)!.tags)).toHaveLength(3);
    await expectCode(ebs.createTags('vol-missing', { team: 'a' }), 'not-found', 'InvalidVolume.NotFound');
    await expectCode(ebs.deleteTags('vol-missing', ['team']), 'not-found', 'InvalidVolume.NotFound');
    expect(ebs.calls).toMatchObject({ CreateTags: 4, DeleteTags: 3 });
  });

  it('creates, attaches, detaches and deletes over time', async () => {
    const { clock, ebs } = setup();
    const created = await ebs.createVolume(request('t1'));
    expect(created.state).toBe('creating');
    await clock.advance(1_999);
    expect(ebs.volume(created.ebsVolumeId)?.state).toBe('creating');
    await clock.advance(1);
    expect(ebs.volume(created.ebsVolumeId)?.state).toBe('available');

    await ebs.attachVolume({ ebsVolumeId: created.ebsVolumeId, instanceId: I1, device: '/dev/sdf' });
    expect(ebs.volume(created.ebsVolumeId)).toMatchObject({ state: 'in-use', attachments: [{ instanceId: I1, state: 'attaching' }] });
    await clock.advance(2_000);
    expect(ebs.volume(created.ebsVolumeId)?.attachments[0]?.state).toBe('attached');
    expect((await ebs.describeInstances([I1]))[0]?.deviceNames).toEqual(['/dev/xvda', '/dev/sdf']);

    await ebs.detachVolume({ ebsVolumeId: created.ebsVolumeId, instanceId: I1 });
    expect(ebs.volume(created.ebsVolumeId)?.attachments[0]?.state).toBe('detaching');
    await clock.advance(2_000);
    expect(ebs.volume(created.ebsVolumeId)).toMatchObject({ state: 'available', attachments: [] });

    await ebs.deleteVolume(created.ebsVolumeId);
    expect(ebs.volume(created.ebsVolumeId)?.state).toBe('deleting');
    await clock.advance(1_000);
    expect(await ebs.describeVolumes([created.ebsVolumeId])).toEqual([]);
    expect(ebs.calls).toMatchObject({ CreateVolume: 1, AttachVolume: 1, DetachVolume: 1, DeleteVolume: 1, DescribeVolumes: 1 });
  });

  it('keeps a busy volume detaching for good on a plain detach; a forced one detaches it', async () => {
    const { clock, ebs } = setup();
    const id = await availableVolume(clock, ebs, 't-busy');
    await ebs.attachVolume({ ebsVolumeId: id, instanceId: I1, device: '/dev/sdf' });
    await clock.advance(2_000);
    ebs.keepBusy(id, I1);
    await ebs.detachVolume({ ebsVolumeId: id, instanceId: I1 });
    await clock.advance(DAY);
    await ebs.detachVolume({ ebsVolumeId: id, instanceId: I1 });
    await clock.advance(DAY);
    expect(ebs.volume(id)?.attachments[0]?.state).toBe('detaching');
    await ebs.detachVolume({ ebsVolumeId: id, instanceId: I1, force: true });
    await clock.advance(2_000);
    expect(ebs.volume(id)).toMatchObject({ state: 'available', attachments: [] });
  });

  it('refuses a detach from an instance the volume is not attached to as EC2 does, with an error the EC2 adapter classifies the same way', async () => {
    const { clock, ebs } = setup();
    const id = await availableVolume(clock, ebs, 't-detach');
    const refusals: ProviderError[] = [];
    const refused = async (detach: Promise<void>) => {
      const error = await detach.then(() => undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(ProviderError);
      refusals.push(error as ProviderError);
    };
    // Attached nowhere: the volume is in the wrong state.
    await refused(ebs.detachVolume({ ebsVolumeId: id, instanceId: I1 }));
    // Attached to another instance (or under another device): no such attachment.
    await ebs.attachVolume({ ebsVolumeId: id, instanceId: I1, device: '/dev/sdf' });
    await refused(ebs.detachVolume({ ebsVolumeId: id, instanceId: I2 }));
    await refused(ebs.detachVolume({ ebsVolumeId: id, instanceId: I1, device: '/dev/sdg' }));
    expect(refusals.map((e) => e.code)).toEqual(['IncorrectState', 'InvalidAttachment.NotFound', 'InvalidAttachment.NotFound']);
    for (const error of refusals) {
      expect(error.kind).toBe('not-attached');
      expect(toProviderError(await realEc2Error(error.code, error.message)).kind).toBe(error.kind);
    }
  });

  it('refuses a detach of a volume attached nowhere that is not available (creating, failed) as in the wrong state, as the EC2 adapter classifies that answer', async () => {
    const { clock, ebs } = setup();
    const failed = await availableVolume(clock, ebs, 't-failed');
    ebs.failVolume(failed);
    const { ebsVolumeId: creating } = await ebs.createVolume(request('t-creating'));
    for (const ebsVolumeId of [creating, failed]) {
      const error = await ebs.detachVolume({ ebsVolumeId, instanceId: I1 }).catch((e: unknown) => e as ProviderError);
      expect(error).toMatchObject({ kind: 'incorrect-state', code: 'IncorrectState' });
      expect(toProviderError(await realEc2Error(error!.code, error!.message)).kind).toBe(error!.kind);
    }
  });

  it("refuses a CreateVolume its type does not allow as EC2 does (size, IOPS and throughput ranges and ratios, parameters of other types, Multi-Attach), creating nothing", async () => {
    const { ebs } = setup();
    const refused: [VolumeSpec, RegExp][] = [
      [{ sizeGiB: 10, volumeType: 'st1' }, /too small; minimum is 125/],
      [{ sizeGiB: 16_385, volumeType: 'gp2' }, /too large; maximum is 16384/],
      [{ sizeGiB: 10, volumeType: 'gp2', iops: 3_000 }, /iops is not supported for gp2/],
      [{ sizeGiB: 10, volumeType: 'io1' }, /must contain the parameter iops/],
      [{ sizeGiB: 100, volumeType: 'io1', iops: 64_001 }, /iops of 64001 is too high; maximum is 64000/],
      [{ sizeGiB: 10, volumeType: 'io1', iops: 1_000 }, /ratio of 100 is too high; maximum is 50/],
      [{ sizeGiB: 10, volumeType: 'gp3', iops: 2_000 }, /iops of 2000 is too low; minimum is 3000/],
      [{ sizeGiB: 10, volumeType: 'gp3', iops: 6_000 }, /ratio of 600 is too high; maximum is 500/],
      [{ sizeGiB: 100, volumeType: 'gp3', throughput: 1_000 }, /throughput to iops ratio of 0.333 is too high; maximum is 0.25/i],
      [{ sizeGiB: 100, volumeType: 'gp3', iops: 16_000, throughput: 2_001 }, /throughput of 2001 is too high; maximum is 2000/],
      [{ sizeGiB: 100, volumeType: 'io2', iops: 1_000, throughput: 500 }, /throughput is not supported for io2/],
      [{ sizeGiB: 100, volumeType: 'gp3', multiAttach: true }, /Multi-Attach is not supported for gp3/],
    ];
    for (const [index, [spec, message]] of refused.entries()) {
      const error = await ebs.createVolume(request(`t-${index}`, { spec })).catch((e: unknown) => e as ProviderError);
      expect(error, JSON.stringify(spec)).toBeInstanceOf(ProviderError);
      expect(error, JSON.stringify(spec)).toMatchObject({ kind: 'invalid-request' });
      expect((error as ProviderError).message).toMatch(message);
      expect(toProviderError(await realEc2Error((error as ProviderError).code, (error as ProviderError).message)).kind).toBe('invalid-request');
    }
    expect(ebs.volumes()).toEqual([]);
    // At the type's least IOPS any size will do; the ratios hold up to their bounds.
    for (const spec of [
      { sizeGiB: 1, volumeType: 'gp3', iops: 3_000, throughput: 750 },
      { sizeGiB: 4, volumeType: 'io1', iops: 200 },
      { sizeGiB: 125, volumeType: 'sc1' },
      { sizeGiB: 4, volumeType: 'io2', iops: 4_000, multiAttach: true },
    ] satisfies VolumeSpec[]) {
      await ebs.createVolume(request(`ok-${spec.volumeType}`, { spec }));
    }
    expect(ebs.volumes()).toHaveLength(4);
  });

  it("refuses a ModifyVolume whose result its type does not allow, as EC2 does, and leaves the volume as it was", async () => {
    const { clock, ebs } = setup();
    const gp3 = await availableVolume(clock, ebs, 't-gp3', { spec: { sizeGiB: 10, volumeType: 'gp3' } });
    const refused: [Omit<Parameters<MemoryEbs['modifyVolume']>[0], 'ebsVolumeId'>, string, RegExp][] = [
      [{ sizeGiB: 65_537 }, 'InvalidParameterValue', /too large; maximum is 65536/],
      [{ volumeType: 'st1' }, 'InvalidParameterValue', /too small; minimum is 125/],
      [{ iops: 6_000 }, 'InvalidParameterValue', /ratio of 600 is too high; maximum is 500/],
      [{ throughput: 1_000 }, 'InvalidParameterValue', /throughput to iops ratio of 0.333 is too high; maximum is 0.25/i],
      [{ volumeType: 'gp2', iops: 3_000 }, 'InvalidParameterCombination', /iops is not supported for gp2/],
      // On a change to io1 the IOPS left out are 3,000: more than 50 per GiB of 10 GiB.
      [{ volumeType: 'io1' }, 'InvalidParameterValue', /ratio of 300 is too high; maximum is 50/],
    ];
    const before = ebs.volume(gp3);
    for (const [change, code, message] of refused) await expectCode(ebs.modifyVolume({ ebsVolumeId: gp3, ...change }), 'invalid-request', code, message);
    expect(await ebs.describeVolumeModifications([gp3])).toEqual([]);
    expect(ebs.volume(gp3)).toEqual(before);
    await ebs.modifyVolume({ ebsVolumeId: gp3, sizeGiB: 200, volumeType: 'st1' });
    expect((await ebs.describeVolumeModifications([gp3]))[0]).toMatchObject({ state: 'modifying', targetSizeGiB: 200, targetVolumeType: 'st1' });
  });

  it('returns the same volume for a repeated client token and rejects the token with other parameters', async () => {
    const { ebs } = setup();
    const first = await ebs.createVolume(request('t1'));
    const again = await ebs.createVolume(request('t1'));
    expect(again.ebsVolumeId).toBe(first.ebsVolumeId);
    expect(ebs.volumes()).toHaveLength(1);
    await expectCode(
      ebs.createVolume(request('t1', { spec: { sizeGiB: 20, volumeType: 'gp3' } })),
      'idempotency-mismatch',
      'IdempotentParameterMismatch',
    );
    await expectCode(ebs.createVolume(request('t1', { tags: { team: 'storage' } })), 'idempotency-mismatch', 'IdempotentParameterMismatch');
    expect(ebs.volumes()).toHaveLength(1);
  });

  it('takes a repeated request with its fields in another order (as a record read back gives them) as the same request', async () => {
    const { ebs } = setup();
    const first = await ebs.createVolume(request('t1', { spec: { sizeGiB: 10, volumeType: 'gp3', iops: 3000, tags: { a: '1', b: '2' } } }));
    const again = await ebs.createVolume(request('t1', { spec: { tags: { b: '2', a: '1' }, iops: 3000, volumeType: 'gp3', sizeGiB: 10 } }));
    expect(again.ebsVolumeId).toBe(first.ebsVolumeId);
    expect(ebs.volumes()).toHaveLength(1);
  });

  it('refuses a repeat of a token whose volume was deleted, as EC2 does, creating nothing; the EC2 adapter classifies the refusal the same way', async () => {
    const { clock, ebs } = setup();
    const ebsVolumeId = await availableVolume(clock, ebs, 't1');
    await ebs.deleteVolume(ebsVolumeId);
    await clock.advance(1_000);
    const error = (await ebs.createVolume(request('t1')).then(() => undefined, (e: unknown) => e)) as ProviderError;
    expect(error).toMatchObject({ kind: 'idempotency-mismatch', code: 'IdempotentParameterMismatch', message: expect.stringMatching(/already deleted/) });
    expect(toProviderError(await realEc2Error(error.code, error.message)).kind).toBe(error.kind);
    // Deleted outside as well.
    const other = await availableVolume(clock, ebs, 't2');
    ebs.deleteBehindBack(other);
    await expectCode(ebs.createVolume(request('t2')), 'idempotency-mismatch', 'IdempotentParameterMismatch', /already deleted/);
    expect(ebs.volumes()).toEqual([]);
  });

  it('creates volumes only in availability zones it has: those of its instances and those it was given, as EC2 does', async () => {
    const { ebs } = setup();
    await expectCode(ebs.createVolume(request('t1', { availabilityZone: 'zz-nowhere-9z' })), 'invalid-request', 'InvalidZone.NotFound', /zz-nowhere-9z/);
    // A zone of the region with no instance in it is unknown unless given.
    await expectCode(ebs.createVolume(request('t2', { availabilityZone: 'us-east-1c' })), 'invalid-request', 'InvalidZone.NotFound');
    expect(ebs.volumes()).toEqual([]);
    // A refused request leaves nothing under its token: sent again to a zone it has, it creates the volume.
    expect((await ebs.createVolume(request('t1', { availabilityZone: 'us-east-1b' }))).availabilityZone).toBe('us-east-1b');

    const regional = new MemoryEbs({ clock: new FakeClock(0), ownerTagValue: 'stack-a', availabilityZones: ['us-east-1c'] });
    expect((await regional.createVolume(request('t3', { availabilityZone: 'us-east-1c' }))).state).toBe('creating');
    await expectCode(regional.createVolume(request('t4', { availabilityZone: 'us-east-1a' })), 'invalid-request', 'InvalidZone.NotFound');
    regional.addInstance({ instanceId: I1, availabilityZone: 'us-east-1a' });
    expect((await regional.createVolume(request('t4', { availabilityZone: 'us-east-1a' }))).availabilityZone).toBe('us-east-1a');
  });

  it('a volume whose storage failed is in state error: it can be deleted, not attached or modified', async () => {
    const { clock, ebs } = setup();
    const ebsVolumeId = await availableVolume(clock, ebs, 't1');
    ebs.failVolume(ebsVolumeId);
    expect(await ebs.describeVolumes([ebsVolumeId])).toEqual([expect.objectContaining({ state: 'error' })]);
    await expectCode(ebs.attachVolume({ ebsVolumeId, instanceId: I1, device: '/dev/sdf' }), 'incorrect-state', 'IncorrectState');
    await expectCode(ebs.modifyVolume({ ebsVolumeId, sizeGiB: 20 }), 'incorrect-state', 'IncorrectState');
    await ebs.deleteVolume(ebsVolumeId);
    await clock.advance(1_000);
    expect(ebs.volume(ebsVolumeId)).toBeUndefined();
  });

  it('rejects attaching before the volume is available, across zones, on a used device and past the instance limit', async () => {
    const { clock, ebs } = setup();
    const { ebsVolumeId: creating } = await ebs.createVolume(request('t0'));
    await expectCode(ebs.attachVolume({ ebsVolumeId: creating, instanceId: I1, device: '/dev/sdf' }), 'incorrect-state', 'IncorrectState');
    await clock.advance(2_000);
    const v1 = creating;
    const v2 = await availableVolume(clock, ebs, 't2');
    const v3 = await availableVolume(clock, ebs, 't3');
    await expectCode(
      ebs.attachVolume({ ebsVolumeId: v1, instanceId: I_OTHER_AZ, device: '/dev/sdf' }),
      'zone-mismatch',
      'InvalidVolume.ZoneMismatch',
    );
    await ebs.attachVolume({ ebsVolumeId: v1, instanceId: I1, device: '/dev/sdf' });
    await expectCode(
      ebs.attachVolume({ ebsVolumeId: v2, instanceId: I1, device: '/dev/sdf' }),
      'device-in-use',
      'InvalidParameterValue',
      /Attachment point \/dev\/sdf is already in use/,
    );
    await expectCode(ebs.attachVolume({ ebsVolumeId: v2, instanceId: I1, device: '/dev/xvda' }), 'device-in-use', 'InvalidParameterValue');
    await ebs.attachVolume({ ebsVolumeId: v2, instanceId: I2, device: '/dev/sdf' });
    await expectCode(ebs.attachVolume({ ebsVolumeId: v3, instanceId: I2, device: '/dev/sdg' }), 'limit-exceeded', 'AttachmentLimitExceeded');
    await expectCode(ebs.attachVolume({ ebsVolumeId: v3, instanceId: 'i-00000000000000999', device: '/dev/sdg' }), 'not-found', 'InvalidInstanceID.NotFound');
  });

  it('attaches only to a running or stopped instance, as EC2 does; the refusal classifies as the EC2 adapter classifies it', async () => {
    const { clock, ebs } = setup();
    const id = await availableVolume(clock, ebs, 't-states');
    // A terminated instance too: EC2 still knows it (it is described as terminated), so it is not "not found".
    for (const state of ['pending', 'stopping', 'shutting-down', 'terminated'] as const) {
      ebs.setInstanceState(I1, state);
      await expectCode(ebs.attachVolume({ ebsVolumeId: id, instanceId: I1, device: '/dev/sdf' }), 'incorrect-state', 'IncorrectInstanceState', new RegExp(state));
    }
    const error = await ebs.attachVolume({ ebsVolumeId: id, instanceId: I1, device: '/dev/sdf' }).catch((e: unknown) => e as ProviderError);
    expect(toProviderError(await realEc2Error(error!.code, error!.message)).kind).toBe(error!.kind);
    expect(ebs.volume(id)?.attachments).toEqual([]);
    ebs.setInstanceState(I1, 'stopped');
    await ebs.attachVolume({ ebsVolumeId: id, instanceId: I1, device: '/dev/sdf' });
    expect(ebs.volume(id)?.attachments).toEqual([{ instanceId: I1, device: '/dev/sdf', state: 'attaching' }]);
  });

  it('refuses a second attachment of a single-attach volume but allows it for multi-attach', async () => {
    const { clock, ebs } = setup();
    ebs.addInstance({ instanceId: 'i-0000000000000000d', availabilityZone: 'us-east-1a' });
    const single = await availableVolume(clock, ebs, 's');
    await ebs.attachVolume({ ebsVolumeId: single, instanceId: I1, device: '/dev/sdf' });
    await expectCode(ebs.attachVolume({ ebsVolumeId: single, instanceId: I1, device: '/dev/sdg' }), 'already-attached', 'VolumeInUse');
    await expectCode(
      ebs.attachVolume({ ebsVolumeId: single, instanceId: 'i-0000000000000000d', device: '/dev/sdf' }),
      'already-attached',
      'VolumeInUse',
    );
    const multi = await availableVolume(clock, ebs, 'm', { spec: { sizeGiB: 10, volumeType: 'io2', iops: 1000, multiAttach: true } });
    await ebs.attachVolume({ ebsVolumeId: multi, instanceId: I1, device: '/dev/sdh' });
    await ebs.attachVolume({ ebsVolumeId: multi, instanceId: 'i-0000000000000000d', device: '/dev/sdh' });
    expect(ebs.volume(multi)?.attachments).toHaveLength(2);
  });

  it('attaches a Multi-Attach volume to at most 16 instances at once, as EC2 does, one detaching included; the refusal classifies as the EC2 adapter classifies it', async () => {
    const { clock, ebs } = setup();
    const instances = Array.from({ length: 17 }, (_, i) => `i-1000000000000${String(i).padStart(4, '0')}`);
    for (const instanceId of instances) ebs.addInstance({ instanceId, availabilityZone: 'us-east-1a' });
    const multi = await availableVolume(clock, ebs, 'm16', { spec: { sizeGiB: 10, volumeType: 'io2', iops: 1000, multiAttach: true } });
    for (const instanceId of instances.slice(0, 16)) await ebs.attachVolume({ ebsVolumeId: multi, instanceId, device: '/dev/sdf' });
    const last = instances[16]!;
    await expectCode(ebs.attachVolume({ ebsVolumeId: multi, instanceId: last, device: '/dev/sdf' }), 'limit-exceeded', 'AttachmentLimitExceeded', /maximum number of instances \(16\)/);
    const error = await ebs.attachVolume({ ebsVolumeId: multi, instanceId: last, device: '/dev/sdf' }).catch((e: unknown) => e as ProviderError);
    expect(toProviderError(await realEc2Error(error!.code, error!.message)).kind).toBe(error!.kind);
    await clock.advance(2_000);
    await ebs.detachVolume({ ebsVolumeId: multi, instanceId: instances[0]! });
    // Still detaching: its slot is not free yet.
    await expectCode(ebs.attachVolume({ ebsVolumeId: multi, instanceId: last, device: '/dev/sdf' }), 'limit-exceeded', 'AttachmentLimitExceeded');
    await clock.advance(2_000);
    await ebs.attachVolume({ ebsVolumeId: multi, instanceId: last, device: '/dev/sdf' });
    expect(ebs.volume(multi)?.attachments).toHaveLength(16);
  });

  it('refuses deleting an attached volume and detaching what is not attached', async () => {
    const { clock, ebs } = setup();
    const v = await availableVolume(clock, ebs, 't');
    await expectCode(ebs.detachVolume({ ebsVolumeId: v, instanceId: I1 }), 'not-attached', 'IncorrectState');
    await ebs.attachVolume({ ebsVolumeId: v, instanceId: I1, device: '/dev/sdf' });
    await expectCode(ebs.deleteVolume(v), 'incorrect-state', 'VolumeInUse');
    await expectCode(ebs.deleteVolume('vol-00000000000000999'), 'not-found', 'InvalidVolume.NotFound');
  });

  it('modifies in steps, one modification at a time, and never shrinks', async () => {
    const { clock, ebs } = setup();
    const v = await availableVolume(clock, ebs, 't');
    await expectCode(ebs.modifyVolume({ ebsVolumeId: v, sizeGiB: 5 }), 'invalid-request', 'InvalidParameterValue');
    await ebs.modifyVolume({ ebsVolumeId: v, sizeGiB: 20 });
    await expectCode(ebs.modifyVolume({ ebsVolumeId: v, sizeGiB: 30 }), 'modification-in-progress', 'IncorrectModificationState', /'modifying' state/);
    expect((await ebs.describeVolumeModifications([v]))[0]).toMatchObject({ state: 'modifying', targetSizeGiB: 20, startedAt: 2_000 });
    await clock.advance(60_000);
    expect((await ebs.describeVolumeModifications([v]))[0]?.state).toBe('optimizing');
    await expectCode(ebs.modifyVolume({ ebsVolumeId: v, sizeGiB: 30 }), 'modification-in-progress', 'IncorrectModificationState', /'optimizing' state/);
    expect(ebs.volume(v)?.sizeGiB).toBe(20);
    await clock.advance(300_000);
    expect((await ebs.describeVolumeModifications([v]))[0]?.state).toBe('completed');
  });

  it('describes a gp3 volume created without IOPS or throughput with the 3,000 IOPS and 125 MiB/s EC2 gives it, and keeps them through a grow', async () => {
    const { clock, ebs } = setup();
    const created = await ebs.createVolume(request('t-gp3'));
    expect(created).toMatchObject({ volumeType: 'gp3', iops: 3_000, throughput: 125 });
    await clock.advance(2_000);
    await ebs.modifyVolume({ ebsVolumeId: created.ebsVolumeId, sizeGiB: 20 });
    expect((await ebs.describeVolumeModifications([created.ebsVolumeId]))[0]).toMatchObject({ targetSizeGiB: 20, targetIops: 3_000, targetThroughput: 125 });
    await clock.advance(360_000);
    expect(ebs.volume(created.ebsVolumeId)).toMatchObject({ sizeGiB: 20, iops: 3_000, throughput: 125 });
  });

  it("on a type change applies the new type's IOPS and throughput that ModifyVolume leaves out, as EC2 does; the same type keeps its own", async () => {
    const { clock, ebs } = setup();
    const modified = async (ebsVolumeId: string, change: Omit<Parameters<MemoryEbs['modifyVolume']>[0], 'ebsVolumeId'>) => {
      await ebs.modifyVolume({ ebsVolumeId, ...change });
      await clock.advance(360_000);
      const { volumeType, iops, throughput } = ebs.volume(ebsVolumeId)!;
      return { volumeType, iops, throughput };
    };
    const io1 = await availableVolume(clock, ebs, 'io1', { spec: { sizeGiB: 100, volumeType: 'io1', iops: 4_000 } });
    expect(await modified(io1, { volumeType: 'gp3' })).toEqual({ volumeType: 'gp3', iops: 3_000, throughput: 125 });
    const gp3 = await availableVolume(clock, ebs, 'gp3', { spec: { sizeGiB: 100, volumeType: 'gp3', iops: 6_000, throughput: 500 } });
    expect(await modified(gp3, { sizeGiB: 200 })).toEqual({ volumeType: 'gp3', iops: 6_000, throughput: 500 });
    expect(await modified(gp3, { volumeType: 'io2' })).toEqual({ volumeType: 'io2', iops: 3_000, throughput: undefined });
    const toGp2 = await availableVolume(clock, ebs, 'gp2', { spec: { sizeGiB: 100, volumeType: 'gp3', iops: 6_000, throughput: 500 } });
    // gp2 takes no IOPS setting: EC2 describes its baseline, 3 per GiB.
    expect(await modified(toGp2, { volumeType: 'gp2' })).toEqual({ volumeType: 'gp2', iops: 300, throughput: undefined });
  });

  it('describes a gp2 volume with the baseline IOPS EC2 reports for it (3 per GiB, 100 to 16,000), following its size through a grow', async () => {
    const { clock, ebs } = setup();
    const gp2 = (sizeGiB: number) => ({ spec: { sizeGiB, volumeType: 'gp2' as const } });
    const small = await ebs.createVolume(request('gp2-small', gp2(10)));
    expect(small).toMatchObject({ volumeType: 'gp2', iops: 100 });
    expect(small.throughput).toBeUndefined();
    const large = await ebs.createVolume(request('gp2-large', gp2(6_000)));
    expect(large.iops).toBe(16_000);
    await clock.advance(2_000);
    expect(await ebs.describeVolumes([small.ebsVolumeId, large.ebsVolumeId])).toMatchObject([{ iops: 100 }, { iops: 16_000 }]);
    await ebs.modifyVolume({ ebsVolumeId: small.ebsVolumeId, sizeGiB: 200 });
    expect((await ebs.describeVolumeModifications([small.ebsVolumeId]))[0]).toMatchObject({ targetSizeGiB: 200, targetVolumeType: 'gp2', targetIops: 600 });
    await clock.advance(60_000);
    expect(ebs.volume(small.ebsVolumeId)).toMatchObject({ sizeGiB: 200, iops: 600 });
    // Off gp2, the volume has the IOPS the new type gives it, not the baseline.
    await clock.advance(300_000);
    await ebs.modifyVolume({ ebsVolumeId: small.ebsVolumeId, volumeType: 'gp3' });
    await clock.advance(60_000);
    expect(ebs.volume(small.ebsVolumeId)).toMatchObject({ volumeType: 'gp3', iops: 3_000, throughput: 125 });
  });

  it('allows 4 modifications per volume in any 24 hours, counted from their starts, as EC2 does; the refusal says when', async () => {
    const { clock, ebs } = setup();
    const v = await availableVolume(clock, ebs, 't');
    const other = await availableVolume(clock, ebs, 'u');
    const starts: number[] = [];
    for (const sizeGiB of [20, 30, 40, 50]) {
      await ebs.modifyVolume({ ebsVolumeId: v, sizeGiB });
      starts.push(clock.now());
      // Modified and optimized: the next one is allowed as far as the one before goes.
      await clock.advance(HOUR);
    }
    const refused = await ebs.modifyVolume({ ebsVolumeId: v, sizeGiB: 60 }).then(() => undefined, (e: unknown) => e);
    expect(refused).toMatchObject({ kind: 'modification-cooldown', code: 'VolumeModificationRateExceeded' });
    expect((refused as Error).message).toBe(
      `You've reached the maximum modification rate per volume limit. You can modify volume ${v} again after ${new Date(starts[0]! + DAY).toISOString()}.`,
    );
    // Refused: the last modification is still the 4th; other volumes are not held back.
    expect((await ebs.describeVolumeModifications([v]))[0]).toMatchObject({ state: 'completed', targetSizeGiB: 50, startedAt: starts[3] });
    await ebs.modifyVolume({ ebsVolumeId: other, sizeGiB: 20 });

    // A rolling window: the 1st start leaves it 24 hours later, and lets one more in; the 2nd an hour after that.
    await clock.advance(starts[0]! + DAY - clock.now() - 1);
    await expectCode(ebs.modifyVolume({ ebsVolumeId: v, sizeGiB: 60 }), 'modification-cooldown', 'VolumeModificationRateExceeded', new RegExp(new Date(starts[0]! + DAY).toISOString()));
    await clock.advance(1);
    await ebs.modifyVolume({ ebsVolumeId: v, sizeGiB: 60 });
    expect((await ebs.describeVolumeModifications([v]))[0]).toMatchObject({ state: 'modifying', targetSizeGiB: 60, startedAt: clock.now() });
    await clock.advance(HOUR - 1);
    await expectCode(ebs.modifyVolume({ ebsVolumeId: v, sizeGiB: 70 }), 'modification-cooldown', 'VolumeModificationRateExceeded', new RegExp(new Date(starts[1]! + DAY).toISOString()));
    await clock.advance(1);
    await ebs.modifyVolume({ ebsVolumeId: v, sizeGiB: 70 });
  });

  it('counts no failed modification toward the 4 in 24 hours', async () => {
    const { clock, ebs } = setup();
    const v = await availableVolume(clock, ebs, 't');
    await ebs.modifyVolume({ ebsVolumeId: v, sizeGiB: 20 });
    ebs.failModification(v, 'The volume could not be modified.');
    for (const sizeGiB of [20, 30, 40, 50]) {
      await clock.advance(HOUR);
      await ebs.modifyVolume({ ebsVolumeId: v, sizeGiB });
    }
    await clock.advance(HOUR);
    expect(ebs.volume(v)?.sizeGiB).toBe(50);
    await expectCode(ebs.modifyVolume({ ebsVolumeId: v, sizeGiB: 60 }), 'modification-cooldown', 'VolumeModificationRateExceeded');
  });

  it('lists a modification only after the listing delay, the one before it until then', async () => {
    const { clock, ebs } = setup();
    ebs.modificationListingDelayMs = 10_000;
    const v = await availableVolume(clock, ebs, 't');
    await ebs.modifyVolume({ ebsVolumeId: v, sizeGiB: 20 });
    expect(await ebs.describeVolumeModifications([v])).toEqual([]);
    await clock.advance(10_000);
    expect((await ebs.describeVolumeModifications([v]))[0]).toMatchObject({ state: 'modifying', targetSizeGiB: 20 });
    await clock.advance(HOUR);
    await ebs.modifyVolume({ ebsVolumeId: v, sizeGiB: 30 });
    expect((await ebs.describeVolumeModifications([v]))[0]).toMatchObject({ state: 'completed', targetSizeGiB: 20 });
    await clock.advance(10_000);
    expect((await ebs.describeVolumeModifications([v]))[0]).toMatchObject({ state: 'modifying', targetSizeGiB: 30 });
  });

  it('a failed modification reports its message, leaves the volume as it was, and allows the next one at once', async () => {
    const { clock, ebs } = setup();
    const v = await availableVolume(clock, ebs, 't');
    expect(() => ebs.failModification(v, 'nothing to fail')).toThrow(/no modification/);
    await ebs.modifyVolume({ ebsVolumeId: v, sizeGiB: 20, volumeType: 'io2', iops: 1000 });
    ebs.failModification(v, 'Internal error: the modification could not be completed.');
    await clock.advance(120_000);
    expect((await ebs.describeVolumeModifications([v]))[0]).toMatchObject({
      state: 'failed',
      targetSizeGiB: 20,
      statusMessage: 'Internal error: the modification could not be completed.',
    });
    expect(ebs.volume(v)).toMatchObject({ sizeGiB: 10, volumeType: 'gp3' });
    await ebs.modifyVolume({ ebsVolumeId: v, sizeGiB: 20 });
    expect((await ebs.describeVolumeModifications([v]))[0]).toMatchObject({ state: 'modifying', targetSizeGiB: 20 });
    expect((await ebs.describeVolumeModifications([v]))[0]?.statusMessage).toBeUndefined();
  });

  it('lists only volumes owned by this deployment, a page at a time', async () => {
    const { ebs } = setup();
    await ebs.createVolume(request('a'));
    await ebs.createVolume(request('b'));
    await ebs.createVolume(request('c', { tags: { [OWNERSHIP_TAGS.owner]: 'someone-else' } }));
    const first = await ebs.listOwnedVolumes({ limit: 1 });
    const second = await ebs.listOwnedVolumes({ limit: 1, cursor: first.cursor! });
    expect([...first.items, ...second.items].map((v) => v.tags[OWNERSHIP_TAGS.record])).toEqual(['a', 'b']);
    expect(second.cursor).toBeUndefined();
  });

  it('finds the owned volumes carrying one record id, however many, and no others', async () => {
    const { ebs } = setup();
    await ebs.createVolume(request('a'));
    await ebs.createVolume(request('a2', { tags: { [OWNERSHIP_TAGS.owner]: 'stack-a', [OWNERSHIP_TAGS.record]: 'a' } }));
    await ebs.createVolume(request('b'));
    await ebs.createVolume(request('c', { tags: { [OWNERSHIP_TAGS.owner]: 'someone-else', [OWNERSHIP_TAGS.record]: 'a' } }));
    const found = await ebs.findOwnedVolumes('a');
    expect(found).toHaveLength(2);
    expect(found.every((v) => v.tags[OWNERSHIP_TAGS.owner] === 'stack-a' && v.tags[OWNERSHIP_TAGS.record] === 'a')).toBe(true);
    expect(await ebs.findOwnedVolumes('missing')).toEqual([]);
    expect(ebs.calls.DescribeVolumes).toBe(2);
  });

  it('injects faults and rate limits, and takes durations from functions', async () => {
    const clock = new FakeClock(0);
    const ebs = new MemoryEbs({ clock, ownerTagValue: 'x', timings: { create: () => 5_000 }, availabilityZones: ['us-east-1a'] });
    ebs.failNext('CreateVolume', new ProviderError('transient', 'InternalError', 'boom'));
    await expectCode(ebs.createVolume(request('t')), 'transient', 'InternalError');
    const { ebsVolumeId } = await ebs.createVolume(request('t'));
    await clock.advance(4_999);
    expect(ebs.volume(ebsVolumeId)?.state).toBe('creating');
    ebs.beforeCall = (action) => {
      if (action === 'DescribeVolumes') throw new ProviderError('throttled', 'RequestLimitExceeded', 'Request limit exceeded.');
    };
    await expectCode(ebs.describeVolumes([ebsVolumeId]), 'throttled', 'RequestLimitExceeded');
    expect(ebs.calls.CreateVolume).toBe(2);
  });
});
