import { afterEach, describe, expect, it, vi } from 'vitest';
import { createAwsAdapters } from '../../lib/aws/adapters.js';

describe('createAwsAdapters without clients of its own', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('creates them from its client options: their endpoint, region and credentials, not the environment\'s', async () => {
    vi.stubEnv('AWS_ENDPOINT_URL', 'http://127.0.0.1:4566');
    vi.stubEnv('AWS_REGION', 'us-east-1');
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'FROM-THE-ENVIRONMENT');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'from-the-environment');
    const { clients } = createAwsAdapters({
      tableName: 'records',
      queueUrl: 'http://127.0.0.1:5000/000000000000/operations',
      ownerTagValue: 'stack',
      metricsNamespace: 'EbsProvisioner/Stack',
      clientOptions: { endpoint: 'http://127.0.0.1:5000', region: 'eu-west-1', credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' } },
    });
    for (const client of [clients.dynamo, clients.streams, clients.sqs, clients.ec2, clients.ec2Metered]) {
      const endpoint = await client.config.endpoint!();
      expect(`${endpoint.hostname}:${endpoint.port}`).toBe('127.0.0.1:5000');
      expect(await client.config.region()).toBe('eu-west-1');
      expect(await client.config.credentials()).toMatchObject({ accessKeyId: 'testing' });
    }
  });
});
