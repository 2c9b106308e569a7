import { createServer, type Server, type Socket } from 'node:net';
import { DescribeVolumesCommand } from '@aws-sdk/client-ec2';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createAwsAdapters } from '../../lib/aws/adapters.js';
import { createAwsClients } from '../../lib/aws/clients.js';
import { toProviderError } from '../../lib/aws/ec2-errors.js';

const credentials = { AWS_ACCESS_KEY_ID: 'testing', AWS_SECRET_ACCESS_KEY: 'testing', AWS_REGION: 'us-east-1' };

describe('createAwsClients', () => {
  /** A loopback server that accepts connections and never answers. */
  let silent: Server;
  let port: number;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    silent = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    port = (silent.address() as { port: number }).port;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
  });
  afterEach(() => vi.unstubAllEnvs());

  it('points every client at the endpoint from the option, else AWS_ENDPOINT_URL', async () => {
    for (const [name, value] of Object.entries(credentials)) vi.stubEnv(name, value);
    const explicit = createAwsClients({ endpoint: 'http://127.0.0.1:4566', region: 'eu-west-1' });
    for (const client of [explicit.dynamo, explicit.streams, explicit.sqs, explicit.ec2]) {
      const endpoint = await client.config.endpoint!();
      expect(`${endpoint.protocol}//${endpoint.hostname}:${endpoint.port}`).toBe('http://127.0.0.1:4566');
      expect(await client.config.region()).toBe('eu-west-1');
      expect(await client.config.maxAttempts()).toBe(3);
      expect(client.config.retryMode).toBe('standard');
    }
    vi.stubEnv('AWS_ENDPOINT_URL', 'http://127.0.0.1:5000');
    const fromEnv = createAwsClients();
    expect(String((await fromEnv.sqs.config.endpoint!()).port)).toBe('5000');
  });

  it('gives up on a silent endpoint after the request timeout, as a transient provider error', async () => {
    for (const [name, value] of Object.entries(credentials)) vi.stubEnv(name, value);
    const { ec2 } = createAwsClients({ endpoint: `http://127.0.0.1:${port}`, requestTimeoutMs: 150 });
    const started = Date.now();
    const error = await ec2.send(new DescribeVolumesCommand({})).catch((e: unknown) => e);
    const elapsed = Date.now() - started;
    expect(error).toBeInstanceOf(Error);
    expect(toProviderError(error).kind).toBe('transient');
    // Three attempts of 150 ms plus backoff, far below the 30 s test timeout.
    expect(elapsed).toBeGreaterThanOrEqual(3 * 150);
    expect(elapsed).toBeLessThan(5_000);
  });

  it('wires all adapters from one set of clients', () => {
    for (const [name, value] of Object.entries(credentials)) vi.stubEnv(name, value);
    const clients = createAwsClients({ endpoint: 'http://127.0.0.1:4566' });
    const adapters = createAwsAdapters({ tableName: 'records', queueUrl: 'http://127.0.0.1:4566/q', ownerTagValue: 'stack', clients });
    expect(adapters.clients).toBe(clients);
    expect(Object.keys(adapters).sort()).toEqual(['clients', 'metrics', 'provider', 'queue', 'store']);
  });
});
