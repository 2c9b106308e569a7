/**
 * Limits the in-memory EBS keeps as EC2's documentation states them: at most 50 tags on a volume,
 * from CreateVolume as from CreateTags (`TagLimitExceeded`); no type change of a Multi-Attach io2
 * volume, and no type, size or IOPS change of a Multi-Attach io1 volume (Elastic Volumes'
 * limitations); and its documented defaults (27 attachments per instance, the fake clock's start).
 */
import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../lib/engine/ports.js';
import { FakeClock } from '../../lib/memory/clock.js';
import { MemoryEbs } from '../../lib/memory/ebs.js';
import { OWNERSHIP_TAGS } from '../../lib/settings.js';

const AZ = 'us-east-1a';

const clock = new FakeClock(0);

function ebsAt(): MemoryEbs {
  return new MemoryEbs({ clock, ownerTagValue: 'stack-a', availabilityZones: [AZ] });
}

function tagsOf(count: number): Record<string, string> {
  const tags: Record<string, string> = { [OWNERSHIP_TAGS.owner]: 'stack-a', [OWNERSHIP_TAGS.record]: 'v' };
  for (let i = 0; Object.keys(tags).length < count; i++) tags[`key-${i}`] = 'x';
  return tags;
}

async function refusal(promise: Promise<unknown>): Promise<ProviderError> {
  const error = await promise.then(() => undefined, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}

describe('MemoryEbs CreateVolume: at most 50 tags on the volume', () => {
  it('creates a volume with 50 tags', async () => {
    const ebs = ebsAt();
    const volume = await ebs.createVolume({ clientToken: 'a', availabilityZone: AZ, spec: { sizeGiB: 10, volumeType: 'gp3' }, tags: tagsOf(50) });
    expect(Object.keys(volume.tags)).toHaveLength(50);
  });

  it('refuses 51 as CreateTags does (TagLimitExceeded), creating nothing and keeping the client token free', async () => {
    const ebs = ebsAt();
    const error = await refusal(ebs.createVolume({ clientToken: 'a', availabilityZone: AZ, spec: { sizeGiB: 10, volumeType: 'gp3' }, tags: tagsOf(51) }));
    expect(error).toMatchObject({ kind: 'limit-exceeded', code: 'TagLimitExceeded', message: 'The maximum number of tags for a resource has been reached.' });
    expect(await ebs.listOwnedVolumes({ limit: 10 })).toMatchObject({ items: [] });
    // The refused request took no volume for its token: the same token with fewer tags is a new request.
    const volume = await ebs.createVolume({ clientToken: 'a', availabilityZone: AZ, spec: { sizeGiB: 10, volumeType: 'gp3' }, tags: tagsOf(3) });
    expect(volume.ebsVolumeId).toBe('vol-00000000000000001');
  });
});

describe('MemoryEbs ModifyVolume of a Multi-Attach volume', () => {
  async function multiAttach(volumeType: 'io1' | 'io2') {
    const ebs = ebsAt();
    const { ebsVolumeId } = await ebs.createVolume({
      clientToken: volumeType,
      availabilityZone: AZ,
      spec: { sizeGiB: 100, volumeType, iops: 1000, multiAttach: true },
      tags: tagsOf(2),
    });
    await clock.advance(60_000);
    return { ebs, ebsVolumeId };
  }

  it('refuses a type change of io2, and takes its size and IOPS changes', async () => {
    const { ebs, ebsVolumeId } = await multiAttach('io2');
    const error = await refusal(ebs.modifyVolume({ ebsVolumeId, volumeType: 'io1', iops: 1000 }));
    expect(error).toMatchObject({ kind: 'invalid-request', code: 'InvalidParameterCombination' });
    expect(error.message).toBe(`The volume type of Multi-Attach enabled io2 volume ${ebsVolumeId} cannot be modified.`);
    expect(await ebs.describeVolumeModifications([ebsVolumeId])).toEqual([]);
    await ebs.modifyVolume({ ebsVolumeId, volumeType: 'io2', sizeGiB: 200, iops: 2000 });
    expect(await ebs.describeVolumeModifications([ebsVolumeId])).toMatchObject([{ targetSizeGiB: 200, targetIops: 2000, targetVolumeType: 'io2' }]);
  });

  it('refuses a type, size or IOPS change of io1, and names which', async () => {
    const { ebs, ebsVolumeId } = await multiAttach('io1');
    const refused = async (request: Parameters<MemoryEbs['modifyVolume']>[0]) => (await refusal(ebs.modifyVolume(request))).message;
    expect(await refused({ ebsVolumeId, volumeType: 'io2' })).toMatch(/^The volume type of Multi-Attach enabled io1 volume vol-\w+ cannot be modified\.$/);
    expect(await refused({ ebsVolumeId, sizeGiB: 200 })).toMatch(/^The size of Multi-Attach/);
    expect(await refused({ ebsVolumeId, iops: 2000 })).toMatch(/^The IOPS of Multi-Attach/);
    expect(await ebs.describeVolumeModifications([ebsVolumeId])).toEqual([]);
  });

  it('takes a single-attach io1 volume\'s size change as before', async () => {
    const ebs = ebsAt();
    const { ebsVolumeId } = await ebs.createVolume({ clientToken: 's', availabilityZone: AZ, spec: { sizeGiB: 100, volumeType: 'io1', iops: 1000 }, tags: tagsOf(2) });
    await clock.advance(60_000);
    await ebs.modifyVolume({ ebsVolumeId, sizeGiB: 200 });
    expect(await ebs.describeVolumeModifications([ebsVolumeId])).toMatchObject([{ targetSizeGiB: 200 }]);
  });
});

describe('MemoryEbs and FakeClock defaults', () => {
  it('attaches 27 volumes to an instance added without maxAttachments, and refuses the 28th', async () => {
    const ebs = ebsAt();
    ebs.addInstance({ instanceId: 'i-1', availabilityZone: AZ });
    const devices = [...'fghijklmnopqrstuvwxyz'].map((l) => `/dev/sd${l}`).concat([...'abcdefg'].map((l) => `/dev/xvdb${l}`));
    for (let i = 0; i < 28; i++) {
      const { ebsVolumeId } = await ebs.createVolume({ clientToken: `t${i}`, availabilityZone: AZ, spec: { sizeGiB: 1, volumeType: 'gp3' }, tags: tagsOf(2) });
      await clock.advance(10_000);
      const attach = ebs.attachVolume({ ebsVolumeId, instanceId: 'i-1', device: devices[i]! });
      if (i < 27) await attach;
      else expect(await refusal(attach)).toMatchObject({ kind: 'limit-exceeded', code: 'AttachmentLimitExceeded' });
    }
  });

  it('starts a fake clock at 2026-01-01T00:00:00Z unless told otherwise', () => {
    expect(new FakeClock().now()).toBe(Date.parse('2026-01-01T00:00:00Z'));
    expect(new FakeClock(5).now()).toBe(5);
  });
});
