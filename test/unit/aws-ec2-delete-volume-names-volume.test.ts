import { DeleteVolumeCommand, EC2Client } from '@aws-sdk/client-ec2';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { Ec2VolumeProvider } from '../../lib/aws/ec2-provider.js';

const client = new EC2Client({ region: 'us-east-1' });
const ec2 = mockClient(client);
const provider = () => new Ec2VolumeProvider({ client, ownerTagValue: 'stack-a' });

describe('DeleteVolume', () => {
  beforeEach(() => ec2.reset());

  it('names the one volume to delete', async () => {
    ec2.on(DeleteVolumeCommand).resolves({});
    await provider().deleteVolume('vol-0123456789abcdef0');
    expect(ec2.commandCalls(DeleteVolumeCommand).map((call) => call.args[0].input)).toEqual([{ VolumeId: 'vol-0123456789abcdef0' }]);
  });
});
