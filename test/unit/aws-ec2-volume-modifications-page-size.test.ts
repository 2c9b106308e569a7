import { DescribeVolumesModificationsCommand, EC2Client } from '@aws-sdk/client-ec2';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { Ec2VolumeProvider } from '../../lib/aws/ec2-provider.js';

const client = new EC2Client({ region: 'us-east-1' });
const ec2 = mockClient(client);
const provider = () => new Ec2VolumeProvider({ client, ownerTagValue: 'stack-a' });

describe('DescribeVolumesModifications requests', () => {
  beforeEach(() => ec2.reset());

  // EC2 gives at most 500 modifications per page: the largest page, so the fewest requests (each counts
  // against the describe rate budget), and one page for every chunk of 200 volumes.
  it('ask for pages of 500 modifications, its maximum, on every page', async () => {
    ec2
      .on(DescribeVolumesModificationsCommand)
      .resolvesOnce({ VolumesModifications: [], NextToken: 'page-2' })
      .resolves({ VolumesModifications: [] });
    await provider().describeVolumeModifications(['vol-1']);
    expect(ec2.commandCalls(DescribeVolumesModificationsCommand).map((call) => [call.args[0].input.MaxResults, call.args[0].input.NextToken])).toEqual([
      [500, undefined],
      [500, 'page-2'],
    ]);
  });
});
