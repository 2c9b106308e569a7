import { DescribeVolumesCommand, EC2Client } from '@aws-sdk/client-ec2';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { Ec2VolumeProvider } from '../../lib/aws/ec2-provider.js';

const client = new EC2Client({ region: 'us-east-1' });
const ec2 = mockClient(client);
const provider = () => new Ec2VolumeProvider({ client, ownerTagValue: 'stack-a' });

describe('listing owned volumes when EC2 ends with an empty NextToken', () => {
  beforeEach(() => ec2.reset());

  it('gives the page as the last one, with no cursor, as the full describes end on it', async () => {
    ec2.on(DescribeVolumesCommand).resolves({ Volumes: [{ VolumeId: 'vol-1', State: 'available' }], NextToken: '' });
    const page = await provider().listOwnedVolumes({ limit: 10 });
    expect(page.items.map((v) => v.ebsVolumeId)).toEqual(['vol-1']);
    expect(page).not.toHaveProperty('cursor');
    // The same answer ends a describe of every page after one request.
    expect((await provider().findOwnedVolumes('v1')).map((v) => v.ebsVolumeId)).toEqual(['vol-1']);
    expect(ec2.commandCalls(DescribeVolumesCommand)).toHaveLength(2);
  });
});
