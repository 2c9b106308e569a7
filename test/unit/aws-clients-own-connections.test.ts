import { createServer } from 'node:http';
import { DescribeVolumesCommand } from '@aws-sdk/client-ec2';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createAwsClients } from '../../lib/aws/clients.js';
import { NO_VOLUMES_ANSWER } from './aws-client-fixtures.js';

describe('createAwsClients: each client keeps its own connections', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
  });

  it('destroying one client leaves a request another has under way on its connection', async () => {
    vi.stubEnv('AWS_EC2_METADATA_DISABLED', 'true');
    vi.spyOn(Math, 'random').mockReturnValue(0);
    let requests = 0;
    let arrived!: () => void;
    const firstArrived = new Promise<void>((resolve) => (arrived = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    // The first request is answered only once the test lets it go; any later one at once.
    const server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        requests++;
        const answer = () => response.writeHead(200, { 'content-type': 'text/xml;charset=UTF-8' }).end(NO_VOLUMES_ANSWER);
        if (requests === 1) {
          arrived();
          void released.then(answer);
        } else answer();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const endpoint = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
      const clients = createAwsClients({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' } });
      const describing = clients.ec2.send(new DescribeVolumesCommand({}));
      await firstArrived;
      for (const other of [clients.dynamo, clients.streams, clients.sqs, clients.ec2Metered]) other.destroy();
      release();
      await expect(describing).resolves.toMatchObject({ Volumes: [] });
      // Answered on its first attempt: its connection was not cut under it.
      expect(requests).toBe(1);
      clients.ec2.destroy();
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
