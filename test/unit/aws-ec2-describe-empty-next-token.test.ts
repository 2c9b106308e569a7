import { DescribeInstancesCommand, DescribeVolumesCommand, DescribeVolumesModificationsCommand, EC2Client } from '@aws-sdk/client-ec2';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { Ec2VolumeProvider } from '../../lib/aws/ec2-provider.js';

const client = new EC2Client({ region: 'us-east-1' });
const ec2 = mockClient(client);
const provider = () => new Ec2VolumeProvider({ client, ownerTagValue: 'stack-a' });

/**
 * An empty NextToken means no further page, as for the owned-volume listing
 * (aws-ec2-owned-volumes-empty-next-token.test.ts): every describe by id ends on it after one request
 * (were it asked again, the next answer here would add another item).
 */
describe('describes by id when EC2 ends with an empty NextToken', () => {
  beforeEach(() => ec2.reset());

  it('DescribeVolumes: one request, its volumes kept', async () => {
    ec2
      .on(DescribeVolumesCommand)
      .resolvesOnce({ Volumes: [{ VolumeId: 'vol-1', State: 'available' }], NextToken: '' })
      .resolves({ Volumes: [{ VolumeId: 'vol-2', State: 'available' }] });
    expect((await provider().describeVolumes(['vol-1'])).map((volume) => volume.ebsVolumeId)).toEqual(['vol-1']);
    expect(ec2.commandCalls(DescribeVolumesCommand)).toHaveLength(1);
  });

  it('DescribeVolumesModifications: one request, its modifications kept', async () => {
    ec2
      .on(DescribeVolumesModificationsCommand)
      .resolvesOnce({ VolumesModifications: [{ VolumeId: 'vol-1', ModificationState: 'optimizing', TargetSize: 20 }], NextToken: '' })
      .resolves({ VolumesModifications: [{ VolumeId: 'vol-2', ModificationState: 'optimizing', TargetSize: 30 }] });
    expect(await provider().describeVolumeModifications(['vol-1'])).toEqual([{ ebsVolumeId: 'vol-1', state: 'optimizing', targetSizeGiB: 20 }]);
    expect(ec2.commandCalls(DescribeVolumesModificationsCommand)).toHaveLength(1);
  });

  it('DescribeInstances: one request, its instances kept', async () => {
    ec2
      .on(DescribeInstancesCommand)
      .resolvesOnce({ Reservations: [{ Instances: [{ InstanceId: 'i-1', State: { Name: 'running' } }] }], NextToken: '' })
      .resolves({ Reservations: [{ Instances: [{ InstanceId: 'i-2', State: { Name: 'running' } }] }] });
    expect((await provider().describeInstances(['i-1'])).map((instance) => instance.instanceId)).toEqual(['i-1']);
    expect(ec2.commandCalls(DescribeInstancesCommand)).toHaveLength(1);
  });
});
