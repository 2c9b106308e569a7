/**
 * `describeChunkSize` (lib/engine/config.ts) is what the engine hands the provider in one describe,
 * a page of EC2's answer at most; the EC2 adapter sends a chunk in requests of at most 200 ids,
 * EC2's limit on filter values, each answered in one page.
 */
import { DescribeInstancesCommand, DescribeVolumesCommand, EC2Client } from '@aws-sdk/client-ec2';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { Ec2VolumeProvider } from '../../lib/aws/ec2-provider.js';
import { DEFAULT_ENGINE_CONFIG } from '../../lib/engine/config.js';

const client = new EC2Client({ region: 'us-east-1' });
const ec2 = mockClient(client);
const provider = () => new Ec2VolumeProvider({ client, ownerTagValue: 'stack-a' });

describe('a default describe chunk through the EC2 adapter', () => {
  beforeEach(() => ec2.reset());

  it('is a page of each answer at most: 500 volumes, 1000 instances', () => {
    expect(DEFAULT_ENGINE_CONFIG.describeChunkSize).toEqual({ volumes: 500, instances: 1000 });
  });

  it('of volumes goes out as requests of 200, 200 and 100 ids, each asking for a page that holds them all', async () => {
    ec2.on(DescribeVolumesCommand).resolves({ Volumes: [] });
    const ids = Array.from({ length: DEFAULT_ENGINE_CONFIG.describeChunkSize.volumes }, (_, i) => `vol-${String(i).padStart(17, '0')}`);
    await provider().describeVolumes(ids);
    const inputs = ec2.commandCalls(DescribeVolumesCommand).map((call) => call.args[0].input);
    expect(inputs.map((input) => input.Filters?.[0]?.Values?.length)).toEqual([200, 200, 100]);
    expect(inputs.every((input) => (input.MaxResults ?? 0) >= 200)).toBe(true);
    expect(inputs.flatMap((input) => input.Filters![0]!.Values!)).toEqual(ids);
  });

  it('of instances goes out as requests of at most 200 ids', async () => {
    ec2.on(DescribeInstancesCommand).resolves({ Reservations: [] });
    const ids = Array.from({ length: DEFAULT_ENGINE_CONFIG.describeChunkSize.instances }, (_, i) => `i-${String(i).padStart(17, '0')}`);
    await provider().describeInstances(ids);
    const inputs = ec2.commandCalls(DescribeInstancesCommand).map((call) => call.args[0].input);
    expect(inputs.map((input) => input.Filters?.[0]?.Values?.length)).toEqual([200, 200, 200, 200, 200]);
    expect(inputs.flatMap((input) => input.Filters![0]!.Values!)).toEqual(ids);
  });
});
