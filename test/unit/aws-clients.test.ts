import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { AttachVolumeCommand, CreateVolumeCommand, DescribeVolumesCommand } from '@aws-sdk/client-ec2';
import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createAwsAdapters } from '../../lib/aws/adapters.js';
import { createAwsClients } from '../../lib/aws/clients.js';
import { toProviderError } from '../../lib/aws/ec2-errors.js';
import { OWNERSHIP_TAGS } from '../../lib/settings.js';

const credentials = { AWS_ACCESS_KEY_ID: 'testing', AWS_SECRET_ACCESS_KEY: 'testing', AWS_REGION: 'us-east-1' };

describe('createAwsClients', () => {
  /** A loopback server that accepts connections and never answers, counting the requests that arrive. */
  let silent: Server;
  let port: number;
  const sockets: Socket[] = [];
  let silentRequests = 0;

  beforeAll(async () => {
    silent = createServer((socket) => {
      sockets.push(socket);
      // Each attempt comes on a connection of its own (a timed-out one is closed): its first bytes are the request line.
      socket.once('data', (chunk: Buffer) => {
        if (/^POST \//.test(chunk.toString('latin1'))) silentRequests++;
      });
    });
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
    for (const client of [explicit.dynamo, explicit.streams, explicit.sqs, explicit.ec2, explicit.ec2Metered]) {
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

  it('uses fixed credentials when given, never the profile or the environment', async () => {
    vi.stubEnv('AWS_PROFILE', 'a-profile-that-does-not-exist');
    vi.stubEnv('AWS_CONFIG_FILE', '/nonexistent/aws/config');
    vi.stubEnv('AWS_SHARED_CREDENTIALS_FILE', '/nonexistent/aws/credentials');
    vi.stubEnv('AWS_EC2_METADATA_DISABLED', 'true');
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'FROM-THE-ENVIRONMENT');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'from-the-environment');
    const clients = createAwsClients({ endpoint: 'http://127.0.0.1:4566', region: 'us-east-1', credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' } });
    for (const client of [clients.dynamo, clients.streams, clients.sqs, clients.ec2, clients.ec2Metered]) {
      expect(await client.config.credentials()).toMatchObject({ accessKeyId: 'testing', secretAccessKey: 'testing' });
    }
  });

  it('gives up on a silent endpoint after the request timeout, as a transient provider error', async () => {
    for (const [name, value] of Object.entries(credentials)) vi.stubEnv(name, value);
    // Long enough that a busy machine still connects within it (the connection timeout is the same bound).
    const { ec2 } = createAwsClients({ endpoint: `http://127.0.0.1:${port}`, requestTimeoutMs: 500 });
    const connectionsBefore = sockets.length;
    const requestsBefore = silentRequests;
    const error = await ec2.send(new DescribeVolumesCommand({})).catch((e: unknown) => e);
    // Each of the SDK's three attempts reached the endpoint and ended on the request timeout, not on a refused or failed connection.
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ name: 'TimeoutError', message: expect.stringContaining('500 ms requestTimeout'), $metadata: { attempts: 3 } });
    // The server side of the last attempt may be read after the client has given up on it.
    await vi.waitFor(() => {
      expect(sockets.length - connectionsBefore).toBe(3);
      expect(silentRequests - requestsBefore).toBe(3);
    });
    expect(toProviderError(error).kind).toBe('transient');
  });

  it('wires all adapters from one set of clients, each to what its options name: the table, the queue, the shared rate budget, the owner tag', async () => {
    for (const [name, value] of Object.entries(credentials)) vi.stubEnv(name, value);
    const clients = createAwsClients({ endpoint: 'http://127.0.0.1:4566' });
    const options = { tableName: 'records', queueUrl: 'http://127.0.0.1:4566/q', ownerTagValue: 'stack', metricsNamespace: 'EbsProvisioner/Stack', clients };
    const adapters = createAwsAdapters(options);
    expect(adapters.clients).toBe(clients);
    expect(Object.keys(adapters).sort()).toEqual(['clients', 'metrics', 'provider', 'queue', 'store']);

    // With a shared budget's table, the executor and the reconciler spend from it; each adapter sends through these clients.
    const shared = createAwsAdapters({ ...options, rateBudgetTableName: 'rates' });
    expect(Object.keys(shared).sort()).toEqual(['clients', 'metrics', 'provider', 'queue', 'rateBudget', 'store']);
    const doc = mockClient(clients.doc);
    const sqs = mockClient(clients.sqs);
    const ec2 = mockClient(clients.ec2);
    const ec2Metered = mockClient(clients.ec2Metered);
    try {
      doc.on(GetCommand).resolves({});
      doc.on(PutCommand).resolves({});
      sqs.on(SendMessageBatchCommand).callsFake((input: { Entries?: { Id?: string }[] }) => ({
        Successful: (input.Entries ?? []).map((e) => ({ Id: e.Id, MessageId: `m-${e.Id}`, MD5OfMessageBody: 'x' })),
        Failed: [],
      }));
      ec2.on(DescribeVolumesCommand).resolves({ Volumes: [] });
      ec2Metered.on(CreateVolumeCommand).resolves({ VolumeId: 'vol-1', State: 'creating', AvailabilityZone: 'us-east-1a', Size: 1, VolumeType: 'gp3' });

      await shared.store.get({ kind: 'volume', volumeId: 'v1' });
      await shared.rateBudget!.take('CreateVolume', 1, { burst: 5, ratePerSecond: 1 }, 1_000, 0);
      expect(doc.commandCalls(GetCommand).map((call) => call.args[0].input.TableName)).toEqual(['records', 'rates']);
      expect(doc.commandCalls(PutCommand).map((call) => call.args[0].input.TableName)).toEqual(['rates']);

      await shared.queue.send([{ message: { op: 'check-volume', key: { kind: 'volume', volumeId: 'v1' } }, delaySeconds: 0 }]);
      expect(sqs.commandCalls(SendMessageBatchCommand).map((call) => call.args[0].input.QueueUrl)).toEqual([options.queueUrl]);

      // A mutating call goes through the metered client, with this deployment's owner tag; a describe through the other.
      await shared.provider.createVolume({ clientToken: 't', availabilityZone: 'us-east-1a', spec: { sizeGiB: 1, volumeType: 'gp3' }, tags: {} });
      await shared.provider.describeVolumes(['vol-1']);
      const created = ec2Metered.commandCalls(CreateVolumeCommand).map((call) => call.args[0].input.TagSpecifications?.[0]?.Tags);
      expect(created).toEqual([[{ Key: OWNERSHIP_TAGS.owner, Value: 'stack' }]]);
      expect(ec2.commandCalls(CreateVolumeCommand)).toHaveLength(0);
      expect(ec2.commandCalls(DescribeVolumesCommand)).toHaveLength(1);
      expect(ec2Metered.commandCalls(DescribeVolumesCommand)).toHaveLength(0);
    } finally {
      for (const mock of [doc, sqs, ec2, ec2Metered]) mock.restore();
    }
  });

  /** A loopback endpoint that answers every request with `status` and `body`, counting the requests. */
  async function answering(status: number, body: string, contentType: string) {
    let requests = 0;
    const server = createHttpServer((request, response) => {
      requests++;
      request.resume();
      request.on('end', () => response.writeHead(status, { 'content-type': contentType }).end(body));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return {
      endpoint: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
      requests: () => requests,
      close: () => new Promise((resolve) => server.close(resolve)),
    };
  }

  const ec2Error = (code: string) =>
    `<?xml version="1.0" encoding="UTF-8"?><Response><Errors><Error><Code>${code}</Code><Message>${code} from the test endpoint</Message></Error></Errors><RequestID>r-1</RequestID></Response>`;

  it('sends a mutating EC2 call EC2 throttles once: the engine retries it under the shared rate budget, not the SDK; a describe keeps the SDK\'s retries', async () => {
    for (const [name, value] of Object.entries(credentials)) vi.stubEnv(name, value);
    const throttling = await answering(503, ec2Error('RequestLimitExceeded'), 'text/xml');
    try {
      const clients = createAwsClients({ endpoint: throttling.endpoint });
      const error = await clients.ec2Metered.send(new AttachVolumeCommand({ VolumeId: 'vol-1', InstanceId: 'i-1', Device: '/dev/sdf' })).catch((e: unknown) => e);
      expect(toProviderError(error)).toMatchObject({ kind: 'throttled', code: 'RequestLimitExceeded' });
      expect(throttling.requests()).toBe(1);
      // Through the adapters, as the functions use them.
      const { provider } = createAwsAdapters({ tableName: 'records', queueUrl: `${throttling.endpoint}/q`, ownerTagValue: 'stack', metricsNamespace: 'EbsProvisioner/Stack', clients });
      await expect(provider.detachVolume({ ebsVolumeId: 'vol-1', instanceId: 'i-1' })).rejects.toMatchObject({ kind: 'throttled' });
      expect(throttling.requests()).toBe(2);
      await expect(provider.describeVolumes(['vol-1'])).rejects.toMatchObject({ kind: 'throttled' });
      expect(throttling.requests()).toBe(5);
    } finally {
      await throttling.close();
    }
  });

  it.each([
    [429, 'SomethingNew'],
    [400, 'EC2ThrottledException'],
  ])('hands back a mutating EC2 call answered %i %s once, as throttling the engine waits out: whatever the SDK calls throttling, the engine does too', async (status, code) => {
    for (const [name, value] of Object.entries(credentials)) vi.stubEnv(name, value);
    const throttling = await answering(status, ec2Error(code), 'text/xml');
    try {
      const clients = createAwsClients({ endpoint: throttling.endpoint });
      const error = await clients.ec2Metered.send(new AttachVolumeCommand({ VolumeId: 'vol-1', InstanceId: 'i-1', Device: '/dev/sdf' })).catch((e: unknown) => e);
      expect(throttling.requests()).toBe(1);
      expect(toProviderError(error)).toMatchObject({ kind: 'throttled', code });
    } finally {
      await throttling.close();
    }
  });

  it('retries an EC2 internal error and DynamoDB throttling in the SDK, three attempts in all', async () => {
    for (const [name, value] of Object.entries(credentials)) vi.stubEnv(name, value);
    const failing = await answering(500, ec2Error('InternalError'), 'text/xml');
    const throttlingTable = await answering(
      400,
      JSON.stringify({ __type: 'com.amazonaws.dynamodb.v20120810#ThrottlingException', message: 'Rate of requests exceeds the allowed throughput.' }),
      'application/x-amz-json-1.0',
    );
    try {
      const error = await createAwsClients({ endpoint: failing.endpoint }).ec2.send(new DescribeVolumesCommand({})).catch((e: unknown) => e);
      expect(toProviderError(error)).toMatchObject({ kind: 'transient', code: 'InternalError' });
      expect(failing.requests()).toBe(3);
      const { dynamo } = createAwsClients({ endpoint: throttlingTable.endpoint });
      await expect(dynamo.send(new GetItemCommand({ TableName: 'records', Key: { pk: { S: 'k' } } }))).rejects.toMatchObject({ name: 'ThrottlingException' });
      expect(throttlingTable.requests()).toBe(3);
    } finally {
      await failing.close();
      await throttlingTable.close();
    }
  });
});
