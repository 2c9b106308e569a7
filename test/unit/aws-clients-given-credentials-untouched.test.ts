import { createServer } from 'node:http';
import { DescribeVolumesCommand } from '@aws-sdk/client-ec2';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createAwsClients } from '../../lib/aws/clients.js';

/** An endpoint that answers every request with no volumes. */
async function answering(): Promise<{ endpoint: string; close: () => Promise<unknown> }> {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () =>
      response
        .writeHead(200, { 'content-type': 'text/xml;charset=UTF-8' })
        .end('<DescribeVolumesResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/"><requestId>r-1</requestId><volumeSet/></DescribeVolumesResponse>'),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { endpoint: `http://127.0.0.1:${(server.address() as { port: number }).port}`, close: () => new Promise((resolve) => server.close(resolve)) };
}

describe('createAwsClients given fixed credentials', () => {
  afterEach(() => vi.unstubAllEnvs());

  // One set of credentials (the emulator's) is a constant shared by every set of clients a process makes.
  it('signs with them and leaves the object it was given as it was', async () => {
    vi.stubEnv('AWS_EC2_METADATA_DISABLED', 'true');
    const server = await answering();
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
