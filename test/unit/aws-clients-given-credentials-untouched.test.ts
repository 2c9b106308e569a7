import { DescribeVolumesCommand } from '@aws-sdk/client-ec2';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createAwsClients } from '../../lib/aws/clients.js';
import { ec2Answering } from './aws-client-fixtures.js';

describe('createAwsClients given fixed credentials', () => {
  afterEach(() => vi.unstubAllEnvs());

  // One set of credentials (the emulator's) is a constant shared by every set of clients a process makes.
  it('signs with them and leaves the object it was given as it was', async () => {
    vi.stubEnv('AWS_EC2_METADATA_DISABLED', 'true');
    const server = await ec2Answering();
    try {
      const credentials = { accessKeyId: 'testing', secretAccessKey: 'testing' };
      const clients = createAwsClients({ endpoint: server.endpoint, region: 'us-east-1', credentials });
      await expect(clients.ec2.send(new DescribeVolumesCommand({}))).resolves.toMatchObject({ Volumes: [] });
      await expect(clients.ec2Metered.send(new DescribeVolumesCommand({}))).resolves.toMatchObject({ Volumes: [] });
      expect(await clients.sqs.config.credentials()).toMatchObject({ accessKeyId: 'testing', secretAccessKey: 'testing' });
      expect(credentials).toEqual({ accessKeyId: 'testing', secretAccessKey: 'testing' });
      for (const client of [clients.dynamo, clients.streams, clients.sqs, clients.ec2, clients.ec2Metered]) client.destroy();
    } finally {
      await server.close();
    }
  });
});
