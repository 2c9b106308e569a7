import {
  AttachVolumeCommand,
  CreateTagsCommand,
  CreateVolumeCommand,
  DeleteTagsCommand,
  DeleteVolumeCommand,
  DescribeInstancesCommand,
  DescribeVolumesCommand,
  DescribeVolumesModificationsCommand,
  DetachVolumeCommand,
  EC2Client,
  ModifyVolumeCommand,
} from '@aws-sdk/client-ec2';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { Ec2VolumeProvider } from '../../lib/aws/ec2-provider.js';
import { ProviderError } from '../../lib/engine/ports.js';
import { OWNERSHIP_TAGS } from '../../lib/settings.js';
import { realEc2Error } from '../support/ec2-errors.js';

// Mock this one client instance only: the recorded errors come from another EC2Client.
const client = new EC2Client({ region: 'us-east-1' });
const ec2 = mockClient(client);
const provider = () => new Ec2VolumeProvider({ client, ownerTagValue: 'stack-a' });

async function rejection(promise: Promise<unknown>): Promise<ProviderError> {
  const error = await promise.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}

describe('Ec2VolumeProvider (against recorded EC2 behaviour)', () => {
  beforeEach(() => ec2.reset());

  it('creates with the client token, every spec field, and ownership plus client tags', async () => {
    ec2.on(CreateVolumeCommand).resolves({
      VolumeId: 'vol-1',
      State: 'creating',
      AvailabilityZone: 'us-east-1a',
      Size: 100,
      VolumeType: 'io2',
      Iops: 3000,
      Encrypted: true,
      MultiAttachEnabled: true,
      Tags: [{ Key: OWNERSHIP_TAGS.owner, Value: 'stack-a' }],
    });
    const volume = await provider().createVolume({
      clientToken: 'volume/v1#1',
      availabilityZone: 'us-east-1a',
      spec: {
        sizeGiB: 100,
        volumeType: 'io2',
        iops: 3000,
        encrypted: true,
        kmsKeyId: 'alias/data',
        snapshotId: 'snap-1',
        multiAttach: true,
      },
      // A client tag trying to claim another owner does not win.
      tags: { [OWNERSHIP_TAGS.record]: 'v1', team: 'storage', [OWNERSHIP_TAGS.owner]: 'someone-else' },
    });
    const input = ec2.commandCalls(CreateVolumeCommand)[0]!.args[0].input;
    expect(input).toMatchObject({
      ClientToken: 'volume/v1#1',
      AvailabilityZone: 'us-east-1a',
      Size: 100,
      VolumeType: 'io2',
      Iops: 3000,
      Encrypted: true,
      KmsKeyId: 'alias/data',
      SnapshotId: 'snap-1',
      MultiAttachEnabled: true,
    });
    expect(input.TagSpecifications).toEqual([
      {
        ResourceType: 'volume',
        Tags: expect.arrayContaining([
          { Key: OWNERSHIP_TAGS.record, Value: 'v1' },
          { Key: 'team', Value: 'storage' },
          { Key: OWNERSHIP_TAGS.owner, Value: 'stack-a' },
        ]),
      },
    ]);
    expect(input.TagSpecifications![0]!.Tags).toHaveLength(3);

    // A repeat of the request with its tags in another order sends them in the same order.
    await provider().createVolume({
      clientToken: 'volume/v1#1',
      availabilityZone: 'us-east-1a',
      spec: { sizeGiB: 100, volumeType: 'io2', iops: 3000, encrypted: true, kmsKeyId: 'alias/data', snapshotId: 'snap-1', multiAttach: true },
      tags: { team: 'storage', [OWNERSHIP_TAGS.owner]: 'someone-else', [OWNERSHIP_TAGS.record]: 'v1' },
    });
    expect(ec2.commandCalls(CreateVolumeCommand)[1]!.args[0].input).toEqual(input);
    expect(volume).toMatchObject({ ebsVolumeId: 'vol-1', state: 'creating', sizeGiB: 100, multiAttach: true, attachments: [] });
  });

  // moto ignores ClientToken; EC2 answers a reused token with different parameters like this.
  it('reports a reused client token with different parameters as idempotency-mismatch', async () => {
    ec2.on(CreateVolumeCommand).rejects(
      await realEc2Error(
        'IdempotentParameterMismatch',
        'The client token you have provided is associated with a resource that is already deleted. Please use a different client token.',
      ),
    );
    const error = await rejection(
      provider().createVolume({ clientToken: 't', availabilityZone: 'us-east-1a', spec: { sizeGiB: 1, volumeType: 'gp3' }, tags: {} }),
    );
    expect(error).toMatchObject({ kind: 'idempotency-mismatch', code: 'IdempotentParameterMismatch' });
  });

  it('describes many volumes by filter in chunks, paging, so unknown ids cannot fail the call', async () => {
    const ids = Array.from({ length: 450 }, (_, i) => `vol-${i}`);
    ec2.on(DescribeVolumesCommand).callsFake((input) => {
      const wanted: string[] = input.Filters[0].Values;
      // Two pages per call; the last id of each chunk "does not exist" and is simply absent.
      const existing = wanted.slice(0, -1);
      const half = Math.ceil(existing.length / 2);
      const page = input.NextToken === undefined ? existing.slice(0, half) : existing.slice(half);
      return {
        Volumes: page.map((id) => ({ VolumeId: id, State: 'available', AvailabilityZone: 'us-east-1a', Size: 1, VolumeType: 'gp3' })),
        NextToken: input.NextToken === undefined ? 'page-2' : undefined,
      };
    });
    const volumes = await provider().describeVolumes([...ids, 'vol-0']);
    const calls = ec2.commandCalls(DescribeVolumesCommand).map((c) => c.args[0].input);
    expect(calls).toHaveLength(6);
    expect(calls.every((input) => input.VolumeIds === undefined && input.Filters?.[0]?.Name === 'volume-id')).toBe(true);
    expect(calls.filter((input) => input.NextToken === undefined).map((input) => input.Filters![0]!.Values!.length)).toEqual([200, 200, 50]);
    expect(volumes).toHaveLength(447);
    expect(await provider().describeVolumes([])).toEqual([]);
    expect(ec2.commandCalls(DescribeVolumesCommand)).toHaveLength(6);
  });

  // moto jumps straight to available / attached; EC2 passes through these transitional states.
  it('reports the transitional states EC2 goes through', async () => {
    ec2.on(DescribeVolumesCommand).resolves({
      Volumes: [
        { VolumeId: 'vol-1', State: 'creating', AvailabilityZone: 'us-east-1a', Size: 8, VolumeType: 'gp3' },
        {
          VolumeId: 'vol-2',
          State: 'in-use',
          AvailabilityZone: 'us-east-1a',
          Size: 8,
          VolumeType: 'gp3',
          Attachments: [
            { InstanceId: 'i-1', Device: '/dev/sdf', State: 'attaching' },
            { InstanceId: 'i-2', Device: '/dev/sdg', State: 'detaching' },
          ],
        },
        { VolumeId: 'vol-3', State: 'in-use', Attachments: [{ InstanceId: 'i-3', Device: '/dev/sdh', State: 'busy' }] },
        { VolumeId: 'vol-4', State: 'deleting' },
      ],
    });
    const volumes = await provider().describeVolumes(['vol-1', 'vol-2', 'vol-3', 'vol-4']);
    expect(volumes.map((v) => v.state)).toEqual(['creating', 'in-use', 'in-use', 'deleting']);
    expect(volumes[1]!.attachments).toEqual([
      { instanceId: 'i-1', device: '/dev/sdf', state: 'attaching' },
      { instanceId: 'i-2', device: '/dev/sdg', state: 'detaching' },
    ]);
    expect(volumes[2]!.attachments[0]!.state).toBe('busy');
  });

  it('describes instances by filter in chunks, every page: AZ from placement, devices from block device mappings', async () => {
    ec2.on(DescribeInstancesCommand).resolves({
      Reservations: [
        {
          Instances: [
            {
              InstanceId: 'i-1',
              State: { Name: 'running', Code: 16 },
              Placement: { AvailabilityZone: 'us-east-1b' },
              RootDeviceName: '/dev/xvda',
              BlockDeviceMappings: [
                { DeviceName: '/dev/xvda', Ebs: { VolumeId: 'vol-root' } },
                { DeviceName: '/dev/sdf', Ebs: { VolumeId: 'vol-data' } },
              ],
            },
          ],
        },
        { Instances: [{ InstanceId: 'i-2', State: { Name: 'stopped' }, Placement: { AvailabilityZone: 'us-east-1a' }, RootDeviceName: '/dev/sda1' }] },
      ],
    });
    const instances = await provider().describeInstances(['i-1', 'i-2', 'i-gone']);
    expect(ec2.commandCalls(DescribeInstancesCommand)[0]!.args[0].input.Filters).toEqual([
      { Name: 'instance-id', Values: ['i-1', 'i-2', 'i-gone'] },
    ]);
    expect(instances).toEqual([
      { instanceId: 'i-1', availabilityZone: 'us-east-1b', state: 'running', deviceNames: ['/dev/xvda', '/dev/sdf'] },
      { instanceId: 'i-2', availabilityZone: 'us-east-1a', state: 'stopped', deviceNames: ['/dev/sda1'] },
    ]);

    // Many instances: in chunks, every page of each, each id once.
    ec2.reset();
    ec2.on(DescribeInstancesCommand).callsFake((input) => {
      const wanted: string[] = input.Filters[0].Values;
      const half = Math.ceil(wanted.length / 2);
      const page = input.NextToken === undefined ? wanted.slice(0, half) : wanted.slice(half);
      return {
        Reservations: [{ Instances: page.map((id) => ({ InstanceId: id, State: { Name: 'running' }, Placement: { AvailabilityZone: 'us-east-1a' } })) }],
        NextToken: input.NextToken === undefined ? 'page-2' : undefined,
      };
    });
    const ids = Array.from({ length: 250 }, (_, i) => `i-${i}`);
    const many = await provider().describeInstances([...ids, 'i-0']);
    expect(many.map((instance) => instance.instanceId)).toEqual(ids);
    const calls = ec2.commandCalls(DescribeInstancesCommand).map((c) => c.args[0].input);
    expect(calls.map((input) => [input.Filters![0]!.Values!.length, input.NextToken])).toEqual([
      [200, undefined],
      [200, 'page-2'],
      [50, undefined],
      [50, 'page-2'],
    ]);
  });

  it('keeps the latest modification per volume, with when EC2 started it, from every page of every chunk', async () => {
    ec2.on(DescribeVolumesModificationsCommand).resolves({
      VolumesModifications: [
        { VolumeId: 'vol-1', ModificationState: 'completed', TargetSize: 20, StartTime: new Date('2026-01-01T00:00:00Z') },
        { VolumeId: 'vol-1', ModificationState: 'optimizing', TargetSize: 40, TargetVolumeType: 'gp3', StartTime: new Date('2026-01-02T00:00:00Z') },
        { VolumeId: 'vol-2', ModificationState: 'failed', StatusMessage: 'size too small', StartTime: new Date('2026-01-01T00:00:00Z') },
        // EC2 does not list them in order: the latest may come first.
        { VolumeId: 'vol-3', ModificationState: 'modifying', TargetIops: 5000, StartTime: new Date('2026-01-03T00:00:00Z') },
        { VolumeId: 'vol-3', ModificationState: 'completed', TargetIops: 4000, StartTime: new Date('2026-01-01T00:00:00Z') },
      ],
    });
    const modifications = await provider().describeVolumeModifications(['vol-1', 'vol-2', 'vol-3']);
    expect(modifications).toEqual([
      { ebsVolumeId: 'vol-1', state: 'optimizing', targetSizeGiB: 40, targetVolumeType: 'gp3', startedAt: Date.parse('2026-01-02T00:00:00Z') },
      { ebsVolumeId: 'vol-2', state: 'failed', statusMessage: 'size too small', startedAt: Date.parse('2026-01-01T00:00:00Z') },
      { ebsVolumeId: 'vol-3', state: 'modifying', targetIops: 5000, startedAt: Date.parse('2026-01-03T00:00:00Z') },
    ]);

    // Many volumes: by filter in chunks, every page of each.
    ec2.reset();
    ec2.on(DescribeVolumesModificationsCommand).callsFake((input) => {
      const wanted: string[] = input.Filters[0].Values;
      const half = Math.ceil(wanted.length / 2);
      const page = input.NextToken === undefined ? wanted.slice(0, half) : wanted.slice(half);
      return {
        VolumesModifications: page.map((id) => ({ VolumeId: id, ModificationState: 'optimizing', TargetSize: 20, StartTime: new Date('2026-01-01T00:00:00Z') })),
        NextToken: input.NextToken === undefined ? 'page-2' : undefined,
      };
    });
    const ids = Array.from({ length: 450 }, (_, i) => `vol-${i}`);
    const many = await provider().describeVolumeModifications(ids);
    expect(many.map((m) => m.ebsVolumeId)).toEqual(ids);
    const calls = ec2.commandCalls(DescribeVolumesModificationsCommand).map((c) => c.args[0].input);
    expect(calls.map((input) => [input.Filters![0]!.Name, input.Filters![0]!.Values!.length, input.NextToken])).toEqual([
      ['volume-id', 200, undefined],
      ['volume-id', 200, 'page-2'],
      ['volume-id', 200, undefined],
      ['volume-id', 200, 'page-2'],
      ['volume-id', 50, undefined],
      ['volume-id', 50, 'page-2'],
    ]);
  });

  it('reports no modification for a volume EC2 lists with no modification state (never modified), not one under way', async () => {
    ec2.on(DescribeVolumesModificationsCommand).resolves({
      VolumesModifications: [
        { VolumeId: 'vol-1' },
        { VolumeId: 'vol-2', ModificationState: 'completed', TargetSize: 20, StartTime: new Date('2026-01-01T00:00:00Z') },
      ],
    });
    const modifications = await provider().describeVolumeModifications(['vol-1', 'vol-2']);
    expect(modifications).toEqual([{ ebsVolumeId: 'vol-2', state: 'completed', targetSizeGiB: 20, startedAt: Date.parse('2026-01-01T00:00:00Z') }]);
  });

  // moto checks neither the AZ nor device names; EC2 does, with these errors.
  it('classifies attach failures EC2 reports and moto does not', async () => {
    ec2
      .on(AttachVolumeCommand)
      .rejectsOnce(await realEc2Error('InvalidVolume.ZoneMismatch', 'The volume vol-1 is not in the same availability zone as instance i-1'))
      .rejectsOnce(
        await realEc2Error('InvalidParameterValue', "Invalid value '/dev/sdf' for unixDevice. Attachment point /dev/sdf is already in use"),
      )
      .rejectsOnce(await realEc2Error('VolumeInUse', 'vol-1 is already attached to an instance'))
      .rejectsOnce(await realEc2Error('IncorrectState', "vol-1 is not 'available'."));
    const attach = () => provider().attachVolume({ ebsVolumeId: 'vol-1', instanceId: 'i-1', device: '/dev/sdf' });
    expect(await rejection(attach())).toMatchObject({ kind: 'zone-mismatch', code: 'InvalidVolume.ZoneMismatch' });
    expect(await rejection(attach())).toMatchObject({ kind: 'device-in-use', code: 'InvalidParameterValue' });
    expect(await rejection(attach())).toMatchObject({ kind: 'already-attached', code: 'VolumeInUse' });
    expect(await rejection(attach())).toMatchObject({ kind: 'incorrect-state', code: 'IncorrectState' });
    expect(ec2.commandCalls(AttachVolumeCommand)[0]!.args[0].input).toEqual({ VolumeId: 'vol-1', InstanceId: 'i-1', Device: '/dev/sdf' });
  });

  it('detaches always naming the instance; a detached volume is not-attached', async () => {
    ec2.on(DetachVolumeCommand).rejects(await realEc2Error('IncorrectState', "Volume 'vol-1' is in the 'available' state."));
    expect(await rejection(provider().detachVolume({ ebsVolumeId: 'vol-1', instanceId: 'i-1' }))).toMatchObject({ kind: 'not-attached' });
    expect(ec2.commandCalls(DetachVolumeCommand)[0]!.args[0].input).toMatchObject({ VolumeId: 'vol-1', InstanceId: 'i-1' });
  });

  it('sends Force only on a forced detach', async () => {
    ec2.on(DetachVolumeCommand).resolves({});
    await provider().detachVolume({ ebsVolumeId: 'vol-1', instanceId: 'i-1', force: true });
    await provider().detachVolume({ ebsVolumeId: 'vol-1', instanceId: 'i-1' });
    const inputs = ec2.commandCalls(DetachVolumeCommand).map((call) => call.args[0].input);
    expect(inputs[0]).toEqual({ VolumeId: 'vol-1', InstanceId: 'i-1', Force: true });
    expect(inputs[1]).not.toHaveProperty('Force');
  });

  it('detaches naming the device when it is known', async () => {
    ec2.on(DetachVolumeCommand).resolves({});
    await provider().detachVolume({ ebsVolumeId: 'vol-1', instanceId: 'i-1', device: '/dev/sdf' });
    expect(ec2.commandCalls(DetachVolumeCommand)[0]!.args[0].input).toEqual({ VolumeId: 'vol-1', InstanceId: 'i-1', Device: '/dev/sdf' });
  });

  it('delete and modify: in-use, gone, throttled, optimizing, modified 4 times within 24 hours', async () => {
    ec2
      .on(DeleteVolumeCommand)
      .rejectsOnce(await realEc2Error('VolumeInUse', 'Volume vol-1 is currently attached to i-1'))
      .rejectsOnce(await realEc2Error('InvalidVolume.NotFound', "The volume 'vol-1' does not exist."));
    expect(await rejection(provider().deleteVolume('vol-1'))).toMatchObject({ kind: 'incorrect-state' });
    expect(await rejection(provider().deleteVolume('vol-1'))).toMatchObject({ kind: 'not-found' });
    ec2
      .on(ModifyVolumeCommand)
      .rejectsOnce(await realEc2Error('RequestLimitExceeded', 'Request limit exceeded.', 503))
      .rejectsOnce(await realEc2Error('IncorrectModificationState', "Cannot modify volume vol-1 as it is in 'optimizing' state."))
      .rejectsOnce(
        await realEc2Error(
          'VolumeModificationRateExceeded',
          "You've reached the maximum modification rate per volume limit. You can modify volume vol-1 again after 2026-01-02T00:00:00.000Z.",
        ),
      );
    expect(await rejection(provider().modifyVolume({ ebsVolumeId: 'vol-1', sizeGiB: 40 }))).toMatchObject({ kind: 'throttled' });
    expect(await rejection(provider().modifyVolume({ ebsVolumeId: 'vol-1', volumeType: 'gp3', iops: 4000, throughput: 250 }))).toMatchObject({
      kind: 'modification-in-progress',
    });
    expect(await rejection(provider().modifyVolume({ ebsVolumeId: 'vol-1', sizeGiB: 40 }))).toMatchObject({
      kind: 'modification-cooldown',
      code: 'VolumeModificationRateExceeded',
    });
    expect(ec2.commandCalls(ModifyVolumeCommand)[1]!.args[0].input).toEqual({
      VolumeId: 'vol-1',
      VolumeType: 'gp3',
      Iops: 4000,
      Throughput: 250,
    });
  });

  it('tags one volume per call: CreateTags with keys and values, DeleteTags with keys only', async () => {
    ec2.on(CreateTagsCommand).resolves({});
    ec2.on(DeleteTagsCommand).resolves({});
    await provider().createTags('vol-1', { team: 'b', cost: 'c-1' });
    await provider().deleteTags('vol-1', ['env']);
    // Nothing to send is no call: DeleteTags naming no tag would remove every tag, ownership included.
    await provider().createTags('vol-1', {});
    await provider().deleteTags('vol-1', []);
    expect(ec2.commandCalls(CreateTagsCommand).map((call) => call.args[0].input)).toEqual([
      { Resources: ['vol-1'], Tags: [{ Key: 'team', Value: 'b' }, { Key: 'cost', Value: 'c-1' }] },
    ]);
    // Without a value, DeleteTags removes the key whatever its value.
    expect(ec2.commandCalls(DeleteTagsCommand).map((call) => call.args[0].input)).toEqual([{ Resources: ['vol-1'], Tags: [{ Key: 'env' }] }]);
  });

  it("maps CreateTags and DeleteTags errors: a vanished volume, EC2's tag limit, throttling", async () => {
    ec2
      .on(CreateTagsCommand)
      .rejectsOnce(await realEc2Error('InvalidVolume.NotFound', "The volume 'vol-1' does not exist."))
      .rejectsOnce(await realEc2Error('TagLimitExceeded', 'The maximum number of tags for resource vol-1 has been reached.'));
    ec2.on(DeleteTagsCommand).rejectsOnce(await realEc2Error('RequestLimitExceeded', 'Request limit exceeded.', 503));
    expect(await rejection(provider().createTags('vol-1', { team: 'b' }))).toMatchObject({ kind: 'not-found', code: 'InvalidVolume.NotFound' });
    expect(await rejection(provider().createTags('vol-1', { team: 'b' }))).toMatchObject({ kind: 'limit-exceeded', code: 'TagLimitExceeded' });
    expect(await rejection(provider().deleteTags('vol-1', ['env']))).toMatchObject({ kind: 'throttled' });
  });

  it('lists owned volumes by the owner tag, a page at a time', async () => {
    ec2
      .on(DescribeVolumesCommand)
      .resolvesOnce({ Volumes: [{ VolumeId: 'vol-1', State: 'available' }], NextToken: 'next' })
      .resolves({ Volumes: [{ VolumeId: 'vol-2', State: 'in-use' }] });
    const first = await provider().listOwnedVolumes({ limit: 1 });
    expect(first).toMatchObject({ items: [{ ebsVolumeId: 'vol-1' }], cursor: 'next' });
    const second = await provider().listOwnedVolumes({ limit: 1000, cursor: first.cursor });
    expect(second.cursor).toBeUndefined();
    const inputs = ec2.commandCalls(DescribeVolumesCommand).map((c) => c.args[0].input);
    expect(inputs[0]).toEqual({ Filters: [{ Name: `tag:${OWNERSHIP_TAGS.owner}`, Values: ['stack-a'] }], MaxResults: 5 });
    expect(inputs[1]).toMatchObject({ MaxResults: 500, NextToken: 'next' });
    // EC2 takes a whole number of results: a fractional limit is rounded down.
    await provider().listOwnedVolumes({ limit: 7.9 });
    expect(ec2.commandCalls(DescribeVolumesCommand)[2]!.args[0].input.MaxResults).toBe(7);
  });

  it('finds the owned volumes of one record id by both ownership tags, every page', async () => {
    ec2
      .on(DescribeVolumesCommand)
      .resolvesOnce({ Volumes: [{ VolumeId: 'vol-1', State: 'in-use' }], NextToken: 'next' })
      .resolves({ Volumes: [{ VolumeId: 'vol-2', State: 'available' }] });
    const found = await provider().findOwnedVolumes('v1');
    expect(found.map((v) => v.ebsVolumeId)).toEqual(['vol-1', 'vol-2']);
    const inputs = ec2.commandCalls(DescribeVolumesCommand).map((c) => c.args[0].input);
    const Filters = [
      { Name: `tag:${OWNERSHIP_TAGS.owner}`, Values: ['stack-a'] },
      { Name: `tag:${OWNERSHIP_TAGS.record}`, Values: ['v1'] },
    ];
    expect(inputs).toEqual([
      { Filters, MaxResults: 500 },
      { Filters, MaxResults: 500, NextToken: 'next' },
    ]);
  });

  it('classifies a failed search through the same table', async () => {
    ec2.on(DescribeVolumesCommand).rejectsOnce(await realEc2Error('RequestLimitExceeded', 'Request limit exceeded.', 503));
    expect(await rejection(provider().findOwnedVolumes('v1'))).toMatchObject({ kind: 'throttled' });
  });
});

describe('Ec2VolumeProvider clients and volume fields', () => {
  beforeEach(() => ec2.reset());

  it("reads a volume's IOPS, throughput and encryption as EC2 gives them, and leaves out what it does not give", async () => {
    ec2.on(DescribeVolumesCommand).resolves({
      Volumes: [
        { VolumeId: 'vol-1', State: 'available', AvailabilityZone: 'us-east-1a', Size: 8, VolumeType: 'gp3', Iops: 4000, Throughput: 250, Encrypted: true, MultiAttachEnabled: false },
        { VolumeId: 'vol-2', State: 'available', AvailabilityZone: 'us-east-1a', Size: 8, VolumeType: 'standard', Encrypted: false },
      ],
    });
    const [gp3, standard] = await provider().describeVolumes(['vol-1', 'vol-2']);
    expect(gp3).toMatchObject({ iops: 4000, throughput: 250, encrypted: true, multiAttach: false });
    expect(standard).toMatchObject({ encrypted: false });
    expect(standard).not.toHaveProperty('iops');
    expect(standard).not.toHaveProperty('throughput');
  });

  it('sends every mutating call through the metered client and every describe through the other', async () => {
    const metered = new EC2Client({ region: 'us-east-1' });
    const meteredMock = mockClient(metered);
    try {
      meteredMock.onAnyCommand().resolves({});
      ec2.onAnyCommand().resolves({});
      const both = new Ec2VolumeProvider({ client, meteredClient: metered, ownerTagValue: 'stack-a' });
      await both.createVolume({ clientToken: 't', availabilityZone: 'us-east-1a', spec: { sizeGiB: 1, volumeType: 'gp3' }, tags: {} });
      await both.attachVolume({ ebsVolumeId: 'vol-1', instanceId: 'i-1', device: '/dev/sdf' });
      await both.detachVolume({ ebsVolumeId: 'vol-1', instanceId: 'i-1' });
      await both.deleteVolume('vol-1');
      await both.modifyVolume({ ebsVolumeId: 'vol-1', sizeGiB: 2 });
      await both.createTags('vol-1', { team: 'a' });
      await both.deleteTags('vol-1', ['team']);
      await both.describeVolumes(['vol-1']);
      await both.describeVolumeModifications(['vol-1']);
      await both.describeInstances(['i-1']);
      await both.listOwnedVolumes({ limit: 10 });
      await both.findOwnedVolumes('v1');
      const names = (calls: ReturnType<typeof ec2.calls>) => calls.map((call) => (call.args[0] as object).constructor.name);
      expect(names(meteredMock.calls())).toEqual([
        'CreateVolumeCommand',
        'AttachVolumeCommand',
        'DetachVolumeCommand',
        'DeleteVolumeCommand',
        'ModifyVolumeCommand',
        'CreateTagsCommand',
        'DeleteTagsCommand',
      ]);
      expect(names(ec2.calls())).toEqual([
        'DescribeVolumesCommand',
        'DescribeVolumesModificationsCommand',
        'DescribeInstancesCommand',
        'DescribeVolumesCommand',
        'DescribeVolumesCommand',
      ]);
    } finally {
      meteredMock.restore();
    }
  });
});
