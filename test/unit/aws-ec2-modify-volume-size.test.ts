import { EC2Client, ModifyVolumeCommand } from '@aws-sdk/client-ec2';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { Ec2VolumeProvider } from '../../lib/aws/ec2-provider.js';

const client = new EC2Client({ region: 'us-east-1' });
const ec2 = mockClient(client);
const provider = () => new Ec2VolumeProvider({ client, ownerTagValue: 'stack-a' });

describe('ModifyVolume of a grown volume', () => {
  beforeEach(() => ec2.reset());

  it('asks EC2 for the new size alone when only the size changes', async () => {
    ec2.on(ModifyVolumeCommand).resolves({ VolumeModification: { VolumeId: 'vol-1', ModificationState: 'modifying', TargetSize: 40 } });
    await provider().modifyVolume({ ebsVolumeId: 'vol-1', sizeGiB: 40 });
    const input = ec2.commandCalls(ModifyVolumeCommand)[0]!.args[0].input;
    expect(input.VolumeId).toBe('vol-1');
    expect(input.Size).toBe(40);
    expect(input.VolumeType).toBeUndefined();
    expect(input.Iops).toBeUndefined();
    expect(input.Throughput).toBeUndefined();
  });
});
