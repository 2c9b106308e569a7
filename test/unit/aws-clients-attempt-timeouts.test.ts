import { DescribeVolumesCommand } from '@aws-sdk/client-ec2';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createAwsClients, type AwsClients } from '../../lib/aws/clients.js';
import { ec2Answering } from './aws-client-fixtures.js';

const credentials = { AWS_ACCESS_KEY_ID: 'testing', AWS_SECRET_ACCESS_KEY: 'testing', AWS_REGION: 'us-east-1' };

/** The timeouts an EC2 client's HTTP handler applies, read after a request (the handler settles them on its first). */
async function timeoutsOf(clients: AwsClients): Promise<{ requestTimeout?: number; connectionTimeout?: number }> {
  await clients.ec2.send(new DescribeVolumesCommand({}));
  const handler = clients.ec2.config.requestHandler as unknown as { httpHandlerConfigs(): { requestTimeout?: number; connectionTimeout?: number } };
  const { requestTimeout, connectionTimeout } = handler.httpHandlerConfigs();
  return { requestTimeout, connectionTimeout };
}

describe('createAwsClients: the time one HTTP attempt may take', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('bounds an attempt by 5 s by default, its connection included', async () => {
    for (const [name, value] of Object.entries(credentials)) vi.stubEnv(name, value);
    const server = await ec2Answering();
    try {
      const { requestTimeout, connectionTimeout } = await timeoutsOf(createAwsClients({ endpoint: server.endpoint }));
      expect(requestTimeout).toBe(5_000);
      expect(connectionTimeout).toBeGreaterThan(0);
      expect(connectionTimeout).toBeLessThanOrEqual(5_000);
    } finally {
      await server.close();
    }
  });

  it('bounds the connection by a request timeout shorter than the usual connection timeout', async () => {
    for (const [name, value] of Object.entries(credentials)) vi.stubEnv(name, value);
    const server = await ec2Answering();
    try {
      const { requestTimeout, connectionTimeout } = await timeoutsOf(createAwsClients({ endpoint: server.endpoint, requestTimeoutMs: 300 }));
      expect(requestTimeout).toBe(300);
      expect(connectionTimeout).toBeGreaterThan(0);
      expect(connectionTimeout).toBeLessThanOrEqual(300);
    } finally {
      await server.close();
    }
  });
});
