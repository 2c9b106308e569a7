import { CreateVolumeCommand, EC2Client } from '@aws-sdk/client-ec2';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { Ec2VolumeProvider } from '../../lib/aws/ec2-provider.js';

const client = new EC2Client({ region: 'us-east-1' });
const ec2 = mockClient(client);
const provider = () => new Ec2VolumeProvider({ client, ownerTagValue: 'stack-a' });

describe('CreateVolume of a gp3 spec with throughput', () => {
  beforeEach(() => ec2.reset());

  it('asks EC2 for the throughput the spec names, and reports the throughput EC2 gives', async () => {
    ec2.on(CreateVolumeCommand).resolves({
      VolumeId: 'vol-1',
      State: 'creating',
      AvailabilityZone: 'us-east-1a',
      Size: 50,
      VolumeType: 'gp3',
      Iops: 4000,
      Throughput: 500,
      Encrypted: false,
      MultiAttachEnabled: false,
    });
    const volume = await provider().createVolume({
      clientToken: 'volume/v1#1',
      availabilityZone: 'us-east-1a',
      spec: { sizeGiB: 50, volumeType: 'gp3', iops: 4000, throughput: 500 },
      tags: {},
    });
    expect(ec2.commandCalls(CreateVolumeCommand)[0]!.args[0].input).toMatchObject({ VolumeType: 'gp3', Iops: 4000, Throughput: 500 });
    expect(volume).toMatchObject({ volumeType: 'gp3', iops: 4000, throughput: 500 });
  });
});
