import { DescribeInstancesCommand, DescribeVolumesModificationsCommand, EC2Client } from '@aws-sdk/client-ec2';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { Ec2VolumeProvider } from '../../lib/aws/ec2-provider.js';

const client = new EC2Client({ region: 'us-east-1' });
const ec2 = mockClient(client);
const provider = () => new Ec2VolumeProvider({ client, ownerTagValue: 'stack-a' });

describe('describe requests within the bounds EC2 documents', () => {
  beforeEach(() => ec2.reset());

  // DescribeInstances takes MaxResults from 5 to 1000: the largest page it gives, so the fewest requests.
  it('DescribeInstances asks for pages of 1000 instances, its maximum', async () => {
    ec2.on(DescribeInstancesCommand).resolves({ Reservations: [] });
    await provider().describeInstances(['i-1']);
    expect(ec2.commandCalls(DescribeInstancesCommand).map((call) => call.args[0].input.MaxResults)).toEqual([1000]);
  });

  // Each request counts against the describe rate budget: an id asked for twice is asked for once.
  it('DescribeVolumesModifications names each volume once, so 200 distinct ids take one request however often they repeat', async () => {
    ec2.on(DescribeVolumesModificationsCommand).resolves({ VolumesModifications: [] });
    const ids = Array.from({ length: 200 }, (_, i) => `vol-${i}`);
    await provider().describeVolumeModifications([...ids, ...ids]);
    const calls = ec2.commandCalls(DescribeVolumesModificationsCommand).map((call) => call.args[0].input);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.Filters).toEqual([{ Name: 'volume-id', Values: ids }]);
  });
});
