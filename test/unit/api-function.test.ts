import { DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { toItem } from '../../lib/aws/record-item.js';
import type { AwsClientOptions } from '../../lib/aws/clients.js';
import { localLambdaContext, toProxyEvent } from '../../lib/api/node-server.js';
import { API } from '../../lib/settings.js';

/** The options the entry point creates its AWS clients with. */
const clientOptions = vi.hoisted(() => [] as (AwsClientOptions | undefined)[]);
vi.mock('../../lib/aws/clients.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../lib/aws/clients.js')>();
  return {
    ...actual,
    createAwsClients: (options?: AwsClientOptions) => {
      clientOptions.push(options);
      return actual.createAwsClients(options);
    },
  };
});

/** The Lambda entry point, wired to DynamoDB (mocked at the SDK) and the Powertools logger. */
describe('functions/api handler', () => {
  const dynamo = mockClient(DynamoDBDocumentClient);
  let handler: (typeof import('../../functions/api.js'))['handler'];
  let logLines: string[];
  const env = { ...process.env };

  beforeAll(async () => {
    process.env.TABLE_NAME = 'provisioner-records';
    process.env.RATE_BUDGET_TABLE_NAME = 'provisioner-rate-budget';
    process.env.EC2_REFILL_PER_SECOND = '10';
    process.env.AWS_REGION = 'eu-west-1';
    process.env.POWERTOOLS_LOG_LEVEL = 'INFO';
    ({ handler } = await import('../../functions/api.js'));
  });
  afterAll(() => {
    process.env = env;
    dynamo.restore();
  });
  beforeEach(() => {
    dynamo.reset();
    logLines = [];
    // Powertools writes warnings and errors to stderr, the rest to stdout.
    for (const stream of [process.stdout, process.stderr]) {
      vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
        logLines.push(String(chunk));
        return true;
      });
    }
  });

  const pendingVolume: VolumeRecord = {
    kind: 'volume',
    volumeId: 'data-01',
    spec: { sizeGiB: 20, volumeType: 'gp3', availabilityZone: 'us-east-1a' },
    life: 'alive',
    generation: 1,
    status: { state: 'pending', attempts: 0, updatedAt: '2026-01-01T00:00:00.000Z' },
    version: 1,
    createdAt: '2026-01-01T00:00:00.000Z',
  };

  const invoke = async (request: Parameters<typeof toProxyEvent>[0], requestId = 'req-123') => {
    const event = toProxyEvent(request);
    event.requestContext.requestId = requestId;
    try {
      return await handler(event, localLambdaContext('lambda-request-1'));
    } finally {
      vi.restoreAllMocks();
    }
  };

  it('writes new volumes to the table named by TABLE_NAME, conditionally', async () => {
    dynamo.on(PutCommand).resolves({});
    // Read back what was put, as the table would.
    dynamo.on(GetCommand).callsFake(() => ({ Item: dynamo.commandCalls(PutCommand)[0]?.args[0].input.Item }));
    dynamo.on(QueryCommand).resolves({ Items: [] });
    const response = await invoke({
      method: 'POST',
      url: '/volumes',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ volumeId: 'data-01', spec: { sizeGiB: 20, volumeType: 'gp3', availabilityZone: 'us-east-1a' } }),
    });
    expect(response.statusCode).toBe(201);
    const put = dynamo.commandCalls(PutCommand)[0]!.args[0].input;
    expect(put.TableName).toBe('provisioner-records');
    expect(put.ConditionExpression).toMatch(/^attribute_not_exists/);
    expect(put.Item).toMatchObject({ pk: 'VOLUME#data-01', sk: 'VOLUME', life: 'alive', generation: 1, status: { state: 'pending' } });
  });

  it('reads volumes from the table', async () => {
    const record: VolumeRecord = { ...pendingVolume, status: { ...pendingVolume.status, state: 'available' }, ebsVolumeId: 'vol-0123456789abcdef0', version: 4 };
    dynamo.on(GetCommand).resolves({ Item: toItem(record) });
    dynamo.on(QueryCommand).resolves({ Items: [] });
    const response = await invoke({ method: 'GET', url: '/volumes/data-01' });
    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body)).toMatchObject({ volumeId: 'data-01', ebsVolumeId: 'vol-0123456789abcdef0', status: { state: 'available' } });
  });

  it('reads the line of calls waiting for EC2 tokens from RATE_BUDGET_TABLE_NAME, at EC2_REFILL_PER_SECOND', async () => {
    // The handler reads the system clock: hold it still, so the wait does not depend on how long the call takes.
    const now = Date.parse('2026-03-01T12:00:00.000Z');
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(now);
    let response: Awaited<ReturnType<typeof invoke>>;
    try {
      dynamo.on(GetCommand, { TableName: 'provisioner-records' }).resolves({ Item: toItem(pendingVolume) });
      // 105 tokens owed at 10 a second (the raised refill): a new call would start in 10.6 s, shown as 11.
      dynamo.on(GetCommand, { TableName: 'provisioner-rate-budget' }).resolves({ Item: { bucket: 'CreateVolume', tokens: -105, updatedAt: now, version: 7 } });
      dynamo.on(QueryCommand).resolves({ Items: [] });
      response = await invoke({ method: 'GET', url: '/volumes/data-01' });
    } finally {
      vi.useRealTimers();
    }
    expect(response.statusCode).toBe(200);
    const { rateWait } = JSON.parse(response.body) as { rateWait: { action: string; seconds: number } };
    expect(rateWait).toEqual({ action: 'CreateVolume', seconds: 11 });
    const reads = dynamo.commandCalls(GetCommand).map((call) => call.args[0].input);
    expect(reads).toContainEqual({ TableName: 'provisioner-rate-budget', Key: { bucket: 'CreateVolume' } });
  });

  it('logs JSON lines carrying the API Gateway request id as correlation id', async () => {
    dynamo.on(GetCommand).resolves({});
    const response = await invoke({ method: 'GET', url: '/volumes/missing' }, 'apigw-request-42');
    expect(response.statusCode).toBe(404);
    const entries = logLines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(entries).toContainEqual(
      expect.objectContaining({ message: 'request rejected', status: 404, correlation_id: 'apigw-request-42', level: 'INFO' }),
    );
  });

  it('bounds each AWS call so that one whose every attempt hangs still ends within the function timeout', async () => {
    const { createAwsClients } = await import('../../lib/aws/clients.js');
    expect(clientOptions).toHaveLength(1);
    const perAttemptMs = clientOptions[0]?.requestTimeoutMs;
    expect(perAttemptMs).toBeDefined();
    const attempts = await createAwsClients(clientOptions[0]).dynamo.config.maxAttempts();
    // The SDK's standard backoff between three attempts stays under a second.
    expect(perAttemptMs! * attempts + 1_000).toBeLessThanOrEqual(API.timeoutSeconds * 1_000);
  });

  it('answers a failing table with a 500 problem and an error log', async () => {
    dynamo.on(GetCommand).rejects(new Error('ProvisionedThroughputExceededException'));
    const response = await invoke({ method: 'GET', url: '/volumes/data-01' });
    expect(response.statusCode).toBe(500);
    expect(response.headers?.['Content-Type']).toBe('application/problem+json');
    expect(logLines.map((line) => JSON.parse(line) as Record<string, unknown>)).toContainEqual(
      expect.objectContaining({ level: 'ERROR', message: 'request failed', correlation_id: 'req-123' }),
    );
  });
});
