import { DescribeImagesCommand, DescribeInstancesCommand, RunInstancesCommand, TerminateInstancesCommand } from '@aws-sdk/client-ec2';
import { beforeAll, expect, it } from 'vitest';
import type { AwsClients } from '../../lib/aws/clients.js';
import { Ec2VolumeProvider } from '../../lib/aws/ec2-provider.js';
import { ProviderError } from '../../lib/engine/ports.js';
import { OWNERSHIP_TAGS } from '../../lib/settings.js';
import { describeWithMoto, motoClients } from '../support/moto.js';

// moto makes volumes available and attachments attached at once (EC2 takes seconds), ignores
// ClientToken and MaxResults (DescribeVolumes answers in one page) and checks neither AZ nor device
// names: those behaviours are covered with recorded EC2 answers in test/unit/aws-ec2-provider.test.ts.
describeWithMoto('Ec2VolumeProvider against moto', (endpoint) => {
  let clients: AwsClients;
  let provider: Ec2VolumeProvider;
  let instanceIds: string[];

  beforeAll(async () => {
    clients = motoClients(endpoint());
    provider = new Ec2VolumeProvider({ client: clients.ec2, ownerTagValue: 'stack-test' });
    const { Images } = await clients.ec2.send(new DescribeImagesCommand({ Owners: ['amazon'] }));
    const imageId = Images?.find((image) => image.RootDeviceType === 'ebs')?.ImageId ?? Images?.[0]?.ImageId;
    expect(imageId).toBeDefined();
    const { Instances } = await clients.ec2.send(
      new RunInstancesCommand({
        ImageId: imageId,
        MinCount: 2,
        MaxCount: 2,
        InstanceType: 't3.micro',
        Placement: { AvailabilityZone: 'us-east-1a' },
      }),
    );
    instanceIds = (Instances ?? []).map((instance) => instance.InstanceId!);
    expect(instanceIds).toHaveLength(2);
  });

  async function create(tags: Record<string, string> = {}) {
    return provider.createVolume({
      clientToken: `token-${Math.random()}`,
      availabilityZone: 'us-east-1a',
      spec: { sizeGiB: 10, volumeType: 'gp3', iops: 3000, throughput: 125, encrypted: true },
      tags: { [OWNERSHIP_TAGS.record]: 'v1', ...tags },
    });
  }

  it('creates a tagged volume and describes it, leaving unknown ids out instead of failing', async () => {
    const created = await create({ team: 'storage' });
    expect(created).toMatchObject({ availabilityZone: 'us-east-1a', sizeGiB: 10, volumeType: 'gp3', encrypted: true });
    expect(created.ebsVolumeId).toMatch(/^vol-/);

    const described = await provider.describeVolumes([created.ebsVolumeId, 'vol-0123456789abcdef0', 'garbage']);
    expect(described).toHaveLength(1);
    expect(described[0]).toMatchObject({ ebsVolumeId: created.ebsVolumeId, state: 'available', attachments: [] });
    expect(described[0]!.tags).toEqual({
      [OWNERSHIP_TAGS.record]: 'v1',
      [OWNERSHIP_TAGS.owner]: 'stack-test',
      team: 'storage',
    });
  });

  it('describes instances with their AZ, state and root device; unknown ids are left out', async () => {
    const instances = await provider.describeInstances([...instanceIds, 'i-0123456789abcdef0']);
    expect(instances.map((i) => i.instanceId).sort()).toEqual([...instanceIds].sort());
    const { Reservations } = await clients.ec2.send(new DescribeInstancesCommand({ InstanceIds: instanceIds }));
    const rootDevices = new Map((Reservations ?? []).flatMap((r) => r.Instances ?? []).map((i) => [i.InstanceId!, i.RootDeviceName]));
    for (const instance of instances) {
      expect(instance).toMatchObject({ availabilityZone: 'us-east-1a', state: 'running' });
      const rootDevice = rootDevices.get(instance.instanceId);
      expect(rootDevice, instance.instanceId).toMatch(/^\/dev\//);
      expect(instance.deviceNames, instance.instanceId).toContain(rootDevice);
    }
  });

  it('attaches, sees the device on the instance, detaches, deletes', async () => {
    const { ebsVolumeId } = await create();
    const instanceId = instanceIds[0]!;
    await provider.attachVolume({ ebsVolumeId, instanceId, device: '/dev/sdf' });
    const [attached] = await provider.describeVolumes([ebsVolumeId]);
    // moto: attached at once; EC2 reports "attaching" first.
    expect(attached).toMatchObject({ state: 'in-use', attachments: [{ instanceId, device: '/dev/sdf', state: 'attached' }] });
    const [instance] = await provider.describeInstances([instanceId]);
    expect(instance!.deviceNames).toContain('/dev/sdf');

    // Deleting an attached volume is refused.
    const inUse = await provider.deleteVolume(ebsVolumeId).catch((e: unknown) => e);
    expect(inUse).toBeInstanceOf(ProviderError);
    expect((inUse as ProviderError).kind).toBe('incorrect-state');

    await provider.detachVolume({ ebsVolumeId, instanceId, device: '/dev/sdf' });
    const [detached] = await provider.describeVolumes([ebsVolumeId]);
    expect(detached).toMatchObject({ state: 'available', attachments: [] });

    await provider.deleteVolume(ebsVolumeId);
    expect(await provider.describeVolumes([ebsVolumeId])).toEqual([]);
    const again = await provider.deleteVolume(ebsVolumeId).catch((e: unknown) => e);
    expect(again).toMatchObject({ kind: 'not-found', code: 'InvalidVolume.NotFound' });
  });

  it('modifies a volume and reports the modification, with when it started', async () => {
    const { ebsVolumeId } = await create();
    const before = Date.now();
    await provider.modifyVolume({ ebsVolumeId, sizeGiB: 20, volumeType: 'io2', iops: 4000 });
    const modifications = await provider.describeVolumeModifications([ebsVolumeId, 'vol-0123456789abcdef0']);
    expect(modifications).toHaveLength(1);
    expect(modifications[0]).toMatchObject({ ebsVolumeId, targetSizeGiB: 20, targetVolumeType: 'io2' });
    // To the second, on the same clock as ours.
    expect(modifications[0]!.startedAt).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 - 1000);
    expect(modifications[0]!.startedAt).toBeLessThanOrEqual(Date.now() + 1000);
    const [volume] = await provider.describeVolumes([ebsVolumeId]);
    expect(volume).toMatchObject({ sizeGiB: 20, volumeType: 'io2' });
  });

  it('sets and removes tags on one volume, repeats harmlessly, and leaves the other tags alone', async () => {
    const { ebsVolumeId } = await create({ team: 'a', env: 'dev' });
    await provider.createTags(ebsVolumeId, { team: 'b', cost: 'c-1' });
    await provider.createTags(ebsVolumeId, { team: 'b', cost: 'c-1' });
    await provider.deleteTags(ebsVolumeId, ['env']);
    await provider.deleteTags(ebsVolumeId, ['env']);
    const [volume] = await provider.describeVolumes([ebsVolumeId]);
    expect(volume!.tags).toEqual({ [OWNERSHIP_TAGS.record]: 'v1', [OWNERSHIP_TAGS.owner]: 'stack-test', team: 'b', cost: 'c-1' });
    const missing = await provider.createTags('vol-0123456789abcdef0', { team: 'b' }).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(ProviderError);
    expect(missing).toMatchObject({ kind: 'not-found' });
  });

  // moto answers DescribeVolumes in one page whatever MaxResults says: the pages and their cursor
  // are unit-tested (test/unit/aws-ec2-provider.test.ts); here, the owner tag filter on the wire.
  it('lists only volumes carrying this deployment owner tag', async () => {
    const mine = await Promise.all([create(), create(), create(), create(), create(), create()]);
    const other = new Ec2VolumeProvider({ client: clients.ec2, ownerTagValue: 'another-stack' });
    const theirs = await other.createVolume({
      clientToken: 'other',
      availabilityZone: 'us-east-1a',
      spec: { sizeGiB: 1, volumeType: 'gp3' },
      tags: {},
    });
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await provider.listOwnedVolumes({ limit: 5, ...(cursor ? { cursor } : {}) });
      seen.push(...page.items.map((v) => v.ebsVolumeId));
      cursor = page.cursor;
      expect(++pages).toBeLessThan(10);
    } while (cursor);
    for (const volume of mine) expect(seen).toContain(volume.ebsVolumeId);
    expect(seen).not.toContain(theirs.ebsVolumeId);
    expect(new Set(seen).size).toBe(seen.length);
  });

  it('finds the volumes of one record id by its tag, only among this deployment\'s', async () => {
    const first = await create({ [OWNERSHIP_TAGS.record]: 'orphan-1' });
    const second = await create({ [OWNERSHIP_TAGS.record]: 'orphan-1' });
    await create({ [OWNERSHIP_TAGS.record]: 'orphan-2' });
    const other = new Ec2VolumeProvider({ client: clients.ec2, ownerTagValue: 'another-stack' });
    const theirs = await other.createVolume({
      clientToken: 'other-orphan',
      availabilityZone: 'us-east-1a',
      spec: { sizeGiB: 1, volumeType: 'gp3' },
      tags: { [OWNERSHIP_TAGS.record]: 'orphan-1' },
    });
    await provider.attachVolume({ ebsVolumeId: first.ebsVolumeId, instanceId: instanceIds[0]!, device: '/dev/sdk' });
    const found = await provider.findOwnedVolumes('orphan-1');
    expect(found.map((v) => v.ebsVolumeId).sort()).toEqual([first.ebsVolumeId, second.ebsVolumeId].sort());
    expect(found.map((v) => v.ebsVolumeId)).not.toContain(theirs.ebsVolumeId);
    expect(found.find((v) => v.ebsVolumeId === first.ebsVolumeId)?.attachments).toMatchObject([{ instanceId: instanceIds[0], state: 'attached' }]);
    expect(await provider.findOwnedVolumes('orphan-none')).toEqual([]);
  });

  it('classifies moto errors through the same table', async () => {
    const missing = await provider
      .attachVolume({ ebsVolumeId: 'vol-0123456789abcdef0', instanceId: instanceIds[0]!, device: '/dev/sdg' })
      .catch((e: unknown) => e);
    expect(missing).toMatchObject({ kind: 'not-found', code: 'InvalidVolume.NotFound' });
  });

  it('sees terminated instances as terminated', async () => {
    await clients.ec2.send(new TerminateInstancesCommand({ InstanceIds: [instanceIds[1]!] }));
    const [instance] = await provider.describeInstances([instanceIds[1]!]);
    expect(instance?.state).toBe('terminated');
  });
});
