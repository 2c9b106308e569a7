import { DescribeVolumesModificationsCommand, EC2Client } from '@aws-sdk/client-ec2';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { Ec2VolumeProvider } from '../../lib/aws/ec2-provider.js';

const client = new EC2Client({ region: 'us-east-1' });
const ec2 = mockClient(client);
const provider = () => new Ec2VolumeProvider({ client, ownerTagValue: 'stack-a' });

describe('Ec2VolumeProvider, the targets of a modification', () => {
  beforeEach(() => ec2.reset());

  it('reads the target throughput of a gp3 modification, which the planner matches against a requested throughput', async () => {
    ec2.on(DescribeVolumesModificationsCommand).resolves({
      VolumesModifications: [
        {
          VolumeId: 'vol-1',
          ModificationState: 'modifying',
          TargetVolumeType: 'gp3',
          TargetIops: 4000,
          TargetThroughput: 500,
          TargetSize: 100,
          StartTime: new Date('2026-01-01T00:00:00Z'),
        },
      ],
    });
    expect(await provider().describeVolumeModifications(['vol-1'])).toEqual([
      { ebsVolumeId: 'vol-1', state: 'modifying', targetVolumeType: 'gp3', targetIops: 4000, targetThroughput: 500, targetSizeGiB: 100, startedAt: Date.parse('2026-01-01T00:00:00Z') },
    ]);
  });

  it('gives a modification listed without a start time no start, rather than one at the epoch', async () => {
    ec2.on(DescribeVolumesModificationsCommand).resolves({ VolumesModifications: [{ VolumeId: 'vol-1', ModificationState: 'optimizing', TargetSize: 20 }] });
    expect(await provider().describeVolumeModifications(['vol-1'])).toEqual([{ ebsVolumeId: 'vol-1', state: 'optimizing', targetSizeGiB: 20 }]);
  });
});
