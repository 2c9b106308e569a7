import { DescribeInstancesCommand, EC2Client } from '@aws-sdk/client-ec2';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { Ec2VolumeProvider } from '../../lib/aws/ec2-provider.js';

const client = new EC2Client({ region: 'us-east-1' });
const ec2 = mockClient(client);
const provider = () => new Ec2VolumeProvider({ client, ownerTagValue: 'stack-a' });

describe('an instance EC2 lists without a root device name', () => {
  beforeEach(() => ec2.reset());

  // Device names are strings (ProviderInstance.deviceNames): only a named root device is reserved.
  it('has the device names of its block device mappings only, none for a root it does not name', async () => {
    ec2.on(DescribeInstancesCommand).resolves({
      Reservations: [
        {
          Instances: [
            { InstanceId: 'i-1', State: { Name: 'running' }, Placement: { AvailabilityZone: 'us-east-1a' } },
            { InstanceId: 'i-2', State: { Name: 'running' }, Placement: { AvailabilityZone: 'us-east-1a' }, BlockDeviceMappings: [{ DeviceName: '/dev/sdf' }] },
          ],
        },
      ],
    });
    expect((await provider().describeInstances(['i-1', 'i-2'])).map((instance) => instance.deviceNames)).toEqual([[], ['/dev/sdf']]);
  });
});
