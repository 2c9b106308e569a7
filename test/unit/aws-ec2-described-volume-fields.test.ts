import { DescribeVolumesCommand, EC2Client } from '@aws-sdk/client-ec2';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { Ec2VolumeProvider } from '../../lib/aws/ec2-provider.js';
import { OWNERSHIP_TAGS } from '../../lib/settings.js';

const client = new EC2Client({ region: 'us-east-1' });
const ec2 = mockClient(client);
const provider = () => new Ec2VolumeProvider({ client, ownerTagValue: 'stack-a' });

describe('a volume as DescribeVolumes reports it', () => {
  beforeEach(() => ec2.reset());

  it("keeps EC2's zone, type and tags of the volume", async () => {
    ec2.on(DescribeVolumesCommand).resolves({
      Volumes: [
        {
          VolumeId: 'vol-1',
          State: 'available',
          AvailabilityZone: 'eu-west-1b',
          Size: 500,
          VolumeType: 'st1',
          Encrypted: true,
          MultiAttachEnabled: false,
          Attachments: [],
          Tags: [
            { Key: OWNERSHIP_TAGS.owner, Value: 'stack-a' },
            { Key: 'team', Value: 'storage' },
            { Key: 'empty', Value: '' },
          ],
        },
      ],
    });
    expect(await provider().describeVolumes(['vol-1'])).toEqual([
      {
        ebsVolumeId: 'vol-1',
        state: 'available',
        availabilityZone: 'eu-west-1b',
        sizeGiB: 500,
        volumeType: 'st1',
        multiAttach: false,
        encrypted: true,
        attachments: [],
        tags: { [OWNERSHIP_TAGS.owner]: 'stack-a', team: 'storage', empty: '' },
      },
    ]);
  });
});
