/**
 * The four Lambda entry points (functions/*.ts) as Lambda runs them: each module imported afresh
 * with its environment as the stack sets it (infra/stack.ts, infra/constructs/functions.ts), the
 * AWS SDK's own credentials, region and endpoint from the environment as in a Lambda sandbox, and
 * its exported handler invoked with a real-shaped event and a Lambda context. What each did is read
 * back from moto: the record table, the operation queue and EC2.
 */
import { CreateVolumeCommand, DescribeVolumesCommand } from '@aws-sdk/client-ec2';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import type { Context, DynamoDBRecord, DynamoDBStreamEvent, ScheduledEvent, SQSEvent, SQSRecord } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest';
import { toProxyEvent } from '../../lib/api/node-server.js';
import { newAttachmentRecord } from '../../lib/api/service.js';
import { fromItem, toItem } from '../../lib/aws/record-item.js';
import { tableKey, type RecordKey, type VolumeRecord } from '../../lib/domain/records.js';
import { VOLUME_NOT_OWNED_CODE } from '../../lib/engine/execution/ownership.js';
import type { OperationMessage } from '../../lib/engine/ports.js';
import { LOCAL_AVAILABILITY_ZONE, LOCAL_CREDENTIALS, createMotoBackend, type MotoBackend } from '../../lib/local/moto-backend.js';
import { EXECUTOR, METRICS, OWNERSHIP_TAGS, RATE_BUDGET_TABLE, metricsNamespace } from '../../lib/settings.js';
import { MOTO_REGION, describeWithMoto } from '../support/moto.js';

const DEPLOYMENT = 'EntryPointsTest';
/** An account whose EC2 buckets AWS raised: four times EC2's standard 5 tokens a second. */
const RAISED_REFILL_PER_SECOND = 20;

/** The variables each function's environment holds, as the stack sets them. */
type FunctionName = 'api' | 'watcher' | 'executor' | 'reconciler';
const FUNCTION_VARIABLES = [
  'TABLE_NAME',
  'QUEUE_URL',
  'OWNER_TAG_VALUE',
  'RATE_BUDGET_TABLE_NAME',
  'EC2_REFILL_PER_SECOND',
  'EXECUTOR_MAX_CONCURRENCY',
  'POWERTOOLS_SERVICE_NAME',
  'POWERTOOLS_METRICS_NAMESPACE',
  'LOG_LEVEL',
] as const;

function lambdaContext(name: FunctionName, timeoutSeconds: number): Context {
  const deadline = Date.now() + timeoutSeconds * 1000;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: `${DEPLOYMENT}-${name}`,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${MOTO_REGION}:123456789012:function:${DEPLOYMENT}-${name}`,
    memoryLimitInMB: '512',
    awsRequestId: `lambda-request-${name}`,
    logGroupName: `/aws/lambda/${DEPLOYMENT}-${name}`,
    logStreamName: '2026/01/01/[$LATEST]0123456789abcdef',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

describeWithMoto('Lambda entry points on moto', (endpoint) => {
  let backend: MotoBackend;
  let instanceId: string;
  const saved = { ...process.env };
  let written: string[] = [];

  /** The stack's environment for each function, on this test's table and queue. */
  function environment(name: FunctionName, overrides: Record<string, string> = {}): Record<string, string> {
    const engine = { TABLE_NAME: backend.tableName, QUEUE_URL: backend.queueUrl, OWNER_TAG_VALUE: DEPLOYMENT };
    const budget = { RATE_BUDGET_TABLE_NAME: backend.rateBudgetTableName, EC2_REFILL_PER_SECOND: String(RAISED_REFILL_PER_SECOND) };
    const own: Record<FunctionName, Record<string, string>> = {
      api: { TABLE_NAME: backend.tableName, ...budget },
      watcher: engine,
      executor: { ...engine, ...budget, EXECUTOR_MAX_CONCURRENCY: String(EXECUTOR.maxConcurrency) },
      reconciler: { ...engine, ...budget },
    };
    return {
      POWERTOOLS_SERVICE_NAME: `ebs-provisioner-${name}`,
      LOG_LEVEL: 'INFO',
      ...(name === 'api' ? {} : { POWERTOOLS_METRICS_NAMESPACE: metricsNamespace(DEPLOYMENT) }),
      ...own[name],
      ...overrides,
    };
  }

  /** The entry point as a new Lambda sandbox loads it: a fresh module, reading `environment(name)` at import. */
  async function load<T>(name: FunctionName, overrides: Record<string, string> = {}): Promise<T> {
    for (const variable of FUNCTION_VARIABLES) delete process.env[variable];
    Object.assign(process.env, environment(name, overrides));
    vi.resetModules();
    const module = (await import(`../../functions/${name}.ts`)) as { handler: T };
    return module.handler;
  }

  /** Runs `invoke` with what the function writes (its log lines, its EMF metric documents) captured. */
  async function capturing<T>(invoke: () => Promise<T>): Promise<T> {
    const spies = [process.stdout, process.stderr].map((stream) =>
      vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
        written.push(String(chunk));
        return true;
      }),
    );
    try {
      return await invoke();
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
  }

  const lines = () => written.flatMap((chunk) => chunk.split('\n')).filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, unknown>);
  const metricDocuments = () => lines().filter((line) => line._aws !== undefined);
  /** Every log line (not the metric documents) names the function and carries the invocation's Lambda request id. */
  function expectInvocationLogLines(name: FunctionName): void {
    const logLines = lines().filter((line) => line._aws === undefined);
    expect(logLines.length).toBeGreaterThan(0);
    for (const line of logLines) {
      expect(line).toMatchObject({ service: `ebs-provisioner-${name}`, function_name: `${DEPLOYMENT}-${name}`, function_request_id: `lambda-request-${name}` });
    }
  }

  async function readRecord(key: RecordKey): Promise<Record<string, unknown> | undefined> {
    const { Item } = await backend.clients.doc.send(new GetCommand({ TableName: backend.tableName, Key: tableKey(key), ConsistentRead: true }));
    return Item ? (fromItem(Item) as Record<string, unknown>) : undefined;
  }

  /** The stream's records of `volumeId` written since the last read, waiting (bounded) for at least one. */
  async function streamRecordsOf(volumeId: string): Promise<DynamoDBRecord[]> {
    const found: DynamoDBRecord[] = [];
    const deadline = Date.now() + 10_000;
    while (found.length === 0 && Date.now() < deadline) {
      found.push(...(await backend.stream.read()).filter((record) => record.dynamodb?.Keys?.pk?.S === `VOLUME#${volumeId}`));
    }
    return found;
  }

  /** Messages on the operation queue now, as Lambda's SQS poller hands them over. */
  async function queued(): Promise<SQSRecord[]> {
    const all: SQSRecord[] = [];
    for (;;) {
      const batch = await backend.messages.receive(10);
      if (batch.length === 0) return all;
      all.push(...batch);
    }
  }

  const bodies = (records: SQSRecord[]) => records.map((record) => JSON.parse(record.body) as OperationMessage);

  async function putVolume(volumeId: string, state: 'pending' | 'available', updatedAt: string, ebsVolumeId?: string): Promise<VolumeRecord> {
    const record: VolumeRecord = {
      kind: 'volume',
      volumeId,
      spec: { sizeGiB: 8, volumeType: 'gp3', availabilityZone: LOCAL_AVAILABILITY_ZONE },
      life: 'alive',
      generation: 1,
      status: { state, attempts: 0, updatedAt },
      version: 1,
      createdAt: updatedAt,
      ...(ebsVolumeId ? { ebsVolumeId } : {}),
    };
    await backend.clients.doc.send(new PutCommand({ TableName: backend.tableName, Item: toItem(record) }));
    return record;
  }

  beforeAll(async () => {
    backend = await createMotoBackend({ endpoint: endpoint(), ownerTagValue: DEPLOYMENT, tableName: 'entry-points', queueName: 'entry-points' });
    instanceId = (await backend.launchInstances(1))[0]!;
    // A Lambda sandbox: credentials and region in the environment, no profile; the endpoint at moto.
    for (const name of ['AWS_PROFILE', 'AWS_CONFIG_FILE', 'AWS_SHARED_CREDENTIALS_FILE']) delete process.env[name];
    Object.assign(process.env, {
      AWS_REGION: MOTO_REGION,
      AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
      AWS_ENDPOINT_URL: endpoint(),
      AWS_LAMBDA_FUNCTION_NAME: DEPLOYMENT,
    });
    // Whatever earlier writes left on the stream and the queue is not these tests' business.
    await backend.stream.read();
    await queued();
  }, 60_000);

  afterEach(() => {
    written = [];
  });

  afterAll(async () => {
    process.env = saved;
    await backend?.stop();
  });

  it('api: answers a POST with 201 and the record it wrote to TABLE_NAME, and refuses a bad body with 400, writing nothing', async () => {
    type Api = (event: ReturnType<typeof toProxyEvent>, context: Context) => Promise<{ statusCode: number; body: string; headers?: Record<string, unknown> }>;
    const handler = await load<Api>('api');
    const post = (body: unknown) =>
      capturing(() => handler(toProxyEvent({ method: 'POST', url: '/volumes', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }), lambdaContext('api', 10)));

    const created = await post({ volumeId: 'api-1', spec: { sizeGiB: 8, volumeType: 'gp3', availabilityZone: LOCAL_AVAILABILITY_ZONE } });
    expect(created.statusCode).toBe(201);
    expect(JSON.parse(created.body)).toMatchObject({ volumeId: 'api-1', status: { state: 'pending' } });
    expect(await readRecord({ kind: 'volume', volumeId: 'api-1' })).toMatchObject({ volumeId: 'api-1', life: 'alive', status: { state: 'pending' }, spec: { sizeGiB: 8 } });

    const refused = await post({ volumeId: 'api-2', spec: { sizeGiB: -1, volumeType: 'gp3', availabilityZone: LOCAL_AVAILABILITY_ZONE } });
    expect(refused.statusCode).toBe(400);
    expect(refused.headers?.['Content-Type']).toBe('application/problem+json');
    expect(await readRecord({ kind: 'volume', volumeId: 'api-2' })).toBeUndefined();

    const read = await capturing(() => handler(toProxyEvent({ method: 'GET', url: '/volumes/api-1' }), lambdaContext('api', 10)));
    expect(read.statusCode).toBe(200);
    expect(JSON.parse(read.body)).toMatchObject({ volumeId: 'api-1', status: { state: 'pending' } });
    expectInvocationLogLines('api');
  });

  it('a function whose environment lacks a name it needs fails at its start, naming it', async () => {
    await expect(load('api', { TABLE_NAME: '' })).rejects.toThrow('TABLE_NAME is not set');
    await expect(load('watcher', { QUEUE_URL: '' })).rejects.toThrow('QUEUE_URL is not set');
    await expect(load('executor', { OWNER_TAG_VALUE: '' })).rejects.toThrow('OWNER_TAG_VALUE is not set');
    await expect(load('reconciler', { POWERTOOLS_METRICS_NAMESPACE: '' })).rejects.toThrow('POWERTOOLS_METRICS_NAMESPACE is not set');
  });

  it('watcher: turns the stream record of a new volume into a create-volume message on QUEUE_URL', async () => {
    await putVolume('watch-1', 'pending', new Date().toISOString());
    const records = await streamRecordsOf('watch-1');
    expect(records.map((record) => record.eventName)).toEqual(['INSERT']);
    const handler = await load<(event: DynamoDBStreamEvent, context: Context) => Promise<unknown>>('watcher');
    expect(await capturing(() => handler({ Records: records }, lambdaContext('watcher', 60)))).toEqual({ batchItemFailures: [] });
    const sent = bodies(await queued());
    expect(sent).toEqual([expect.objectContaining({ op: 'create-volume', key: { kind: 'volume', volumeId: 'watch-1' } })]);
  });

  it('watcher: reports by sequence number the one record whose message could not be sent (a queue that does not exist), and only that one', async () => {
    await putVolume('watch-2', 'pending', new Date().toISOString());
    const [insert] = await streamRecordsOf('watch-2');
    // A record that asks for nothing: an item that names no volume or attachment, removed.
    const unrelated: DynamoDBRecord = { eventID: 'other', eventName: 'REMOVE', dynamodb: { Keys: { pk: { S: 'OTHER#x' }, sk: { S: 'OTHER' } }, SequenceNumber: '1' } };
    const handler = await load<(event: DynamoDBStreamEvent, context: Context) => Promise<unknown>>('watcher', { QUEUE_URL: `${backend.queueUrl}-missing` });
    const response = await capturing(() => handler({ Records: [unrelated, insert!] }, lambdaContext('watcher', 60)));
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: insert!.dynamodb!.SequenceNumber }] });
    expect(lines()).toContainEqual(expect.objectContaining({ level: 'ERROR', message: 'handling record change failed', key: 'volume/watch-2' }));
    expectInvocationLogLines('watcher');
  });

  it('executor: makes the CreateVolume call for a create-volume message, tags the volume as owned and writes its id and state to the record', async () => {
    await putVolume('exec-1', 'pending', new Date().toISOString());
    await backend.stream.read();
    const message: OperationMessage = { op: 'create-volume', key: { kind: 'volume', volumeId: 'exec-1' } };
    await backend.clients.sqs.send(new SendMessageCommand({ QueueUrl: backend.queueUrl, MessageBody: JSON.stringify(message) }));
    const records = await queued();
    expect(records).toHaveLength(1);
    const handler = await load<(event: SQSEvent, context: Context) => Promise<unknown>>('executor');
    expect(await capturing(() => handler({ Records: records }, lambdaContext('executor', EXECUTOR.timeoutSeconds)))).toEqual({ batchItemFailures: [] });

    const record = await readRecord({ kind: 'volume', volumeId: 'exec-1' });
    expect(record?.ebsVolumeId).toMatch(/^vol-/);
    // moto's volumes are available at once.
    expect(record?.status).toMatchObject({ state: 'available' });
    const { Volumes } = await backend.clients.ec2.send(new DescribeVolumesCommand({ VolumeIds: [record!.ebsVolumeId as string] }));
    expect(Volumes?.[0]?.Tags).toEqual(
      expect.arrayContaining([
        { Key: OWNERSHIP_TAGS.owner, Value: DEPLOYMENT },
        { Key: OWNERSHIP_TAGS.record, Value: 'exec-1' },
      ]),
    );
    // The call's token came from the shared budget in RATE_BUDGET_TABLE_NAME.
    const { Item: bucket } = await backend.clients.doc.send(
      new GetCommand({ TableName: backend.rateBudgetTableName, Key: { [RATE_BUDGET_TABLE.partitionKey]: 'CreateVolume' }, ConsistentRead: true }),
    );
    expect(bucket).toMatchObject({ tokens: expect.any(Number), updatedAt: expect.any(Number) });
    // Its metrics: one EMF document in the deployment's namespace, counting the operation.
    expect(metricDocuments()).toContainEqual(
      expect.objectContaining({ _aws: expect.objectContaining({ CloudWatchMetrics: [expect.objectContaining({ Namespace: metricsNamespace(DEPLOYMENT) })] }), operation: 'create-volume' }),
    );
  });

  it('executor: attaches a volume this deployment created (its owner tag is OWNER_TAG_VALUE) to the instance its attachment names', async () => {
    const volume = (await readRecord({ kind: 'volume', volumeId: 'exec-1' })) as unknown as VolumeRecord;
    expect(volume.status.state).toBe('available');
    const attachment = newAttachmentRecord(volume, instanceId, new Date().toISOString());
    await backend.clients.doc.send(new PutCommand({ TableName: backend.tableName, Item: toItem(attachment) }));
    await backend.stream.read();
    const record = await sampleRecord({ op: 'attach', key: { kind: 'attachment', volumeId: 'exec-1', instanceId } });
    const handler = await load<(event: SQSEvent, context: Context) => Promise<unknown>>('executor');
    expect(await capturing(() => handler({ Records: [record] }, lambdaContext('executor', EXECUTOR.timeoutSeconds)))).toEqual({ batchItemFailures: [] });
    expect(await readRecord({ kind: 'attachment', volumeId: 'exec-1', instanceId })).toMatchObject({ status: { state: expect.stringMatching(/^(attaching|attached)$/) } });
    const { Volumes } = await backend.clients.ec2.send(new DescribeVolumesCommand({ VolumeIds: [volume.ebsVolumeId!] }));
    expect(Volumes?.[0]?.Attachments).toEqual([expect.objectContaining({ InstanceId: instanceId })]);
  });

  it('executor: judges a volume its record names without a create request of its own by the owner tag: OWNER_TAG_VALUE\'s is attached, another deployment\'s is refused', async () => {
    const attachVolumeOf = async (volumeId: string, owner: string) => {
      const { VolumeId } = await backend.clients.ec2.send(
        new CreateVolumeCommand({
          AvailabilityZone: LOCAL_AVAILABILITY_ZONE,
          Size: 1,
          TagSpecifications: [{ ResourceType: 'volume', Tags: [{ Key: OWNERSHIP_TAGS.owner, Value: owner }, { Key: OWNERSHIP_TAGS.record, Value: volumeId }] }],
        }),
      );
      // As a table rebuilt from EC2's volumes and their tags has it: no create request.
      const volume = await putVolume(volumeId, 'available', new Date().toISOString(), VolumeId);
      await backend.clients.doc.send(new PutCommand({ TableName: backend.tableName, Item: toItem(newAttachmentRecord(volume, instanceId, new Date().toISOString())) }));
      const record = await sampleRecord({ op: 'attach', key: { kind: 'attachment', volumeId, instanceId } });
      const handler = await load<(event: SQSEvent, context: Context) => Promise<unknown>>('executor');
      expect(await capturing(() => handler({ Records: [record] }, lambdaContext('executor', EXECUTOR.timeoutSeconds)))).toEqual({ batchItemFailures: [] });
      const { Volumes } = await backend.clients.ec2.send(new DescribeVolumesCommand({ VolumeIds: [VolumeId!] }));
      return { attachment: await readRecord({ kind: 'attachment', volumeId, instanceId }), ec2: Volumes?.[0]?.Attachments ?? [] };
    };
    const ours = await attachVolumeOf('adopted-1', DEPLOYMENT);
    expect(ours.attachment).toMatchObject({ status: { state: expect.stringMatching(/^(attaching|attached)$/) } });
    expect(ours.ec2).toEqual([expect.objectContaining({ InstanceId: instanceId })]);
    const theirs = await attachVolumeOf('adopted-2', 'AnotherDeployment');
    expect(theirs.attachment).toMatchObject({ status: { state: 'error', code: VOLUME_NOT_OWNED_CODE } });
    expect(theirs.ec2).toEqual([]);
  });

  it('executor: reports the one message it could not send on again (a queue that does not exist), not the one that needed nothing', async () => {
    await putVolume('exec-2', 'pending', new Date().toISOString());
    // Not due for an hour: the executor sends it on, delayed, to the queue it was given.
    const later: SQSRecord = {
      ...(await sampleRecord({ op: 'create-volume', key: { kind: 'volume', volumeId: 'exec-2' }, dueAt: Date.now() + 3_600_000 })),
      messageId: 'later-exec-2',
    };
    // A check of a volume no record holds: nothing to do, nothing to send.
    const check: SQSRecord = { ...(await sampleRecord({ op: 'check-volume', key: { kind: 'volume', volumeId: 'no-such-volume' } })), messageId: 'check-none' };
    const handler = await load<(event: SQSEvent, context: Context) => Promise<unknown>>('executor', { QUEUE_URL: `${backend.queueUrl}-missing` });
    const response = await capturing(() => handler({ Records: [check, later] }, lambdaContext('executor', EXECUTOR.timeoutSeconds)));
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: 'later-exec-2' }] });
    expect(lines()).toContainEqual(expect.objectContaining({ level: 'ERROR', message: 'scheduling follow-ups failed' }));
    expectInvocationLogLines('executor');
  });

  it('reconciler: a pass leaves quiet work whose call waits in line for EC2 tokens (RATE_BUDGET_TABLE_NAME, read at EC2_REFILL_PER_SECOND), nudges it once the line is gone, reports an owned EC2 volume no record holds as leaked, and counts itself', async () => {
    await putVolume('quiet-1', 'pending', new Date(Date.now() - 3_600_000).toISOString());
    const { VolumeId: leaked } = await backend.clients.ec2.send(
      new CreateVolumeCommand({
        AvailabilityZone: LOCAL_AVAILABILITY_ZONE,
        Size: 1,
        TagSpecifications: [{ ResourceType: 'volume', Tags: [{ Key: OWNERSHIP_TAGS.owner, Value: DEPLOYMENT }, { Key: OWNERSHIP_TAGS.record, Value: 'gone-1' }] }],
      }),
    );
    await queued();
    const handler = await load<(event: ScheduledEvent, context: Context) => Promise<Record<string, unknown>>>('reconciler');
    const pass = (id: string) => {
      const event: ScheduledEvent = {
        version: '0',
        id,
        'detail-type': 'Scheduled Event',
        source: 'aws.events',
        account: '123456789012',
        time: new Date().toISOString(),
        region: MOTO_REGION,
        resources: [`arn:aws:events:${MOTO_REGION}:123456789012:rule/${DEPLOYMENT}-reconcile`],
        detail: {},
      };
      return capturing(() => handler(event, lambdaContext('reconciler', 240)));
    };
    const createVolumeBucket = (tokens: number, updatedAt: number) =>
      backend.clients.doc.send(new PutCommand({ TableName: backend.rateBudgetTableName, Item: { [RATE_BUDGET_TABLE.partitionKey]: 'CreateVolume', tokens, updatedAt, version: 1 } }));
    const quietOnes = (messages: OperationMessage[]) => messages.filter((message) => message.key.volumeId === 'quiet-1');

    // CreateVolume calls owe 1000 tokens: its create waits its turn, its message not lost.
    await createVolumeBucket(-1000, Date.now());
    expect(await pass('schedule-event-1')).toMatchObject({ leaked: 1, complete: true, leakCheckComplete: true });
    expect(quietOnes(bodies(await queued()))).toEqual([]);

    // 100 owed 10 s ago: repaid at the account's 20 a second (not at EC2's standard 5): no line now.
    await createVolumeBucket(-100, Date.now() - 10_000);
    written = [];
    const summary = await pass('schedule-event-2');
    expect(summary).toMatchObject({ leaked: 1, complete: true, leakCheckComplete: true });
    expect(summary.requeued).toBeGreaterThanOrEqual(1);
    // A look at it, which the executor answers by taking the work up again.
    expect(quietOnes(bodies(await queued()))).toEqual([expect.objectContaining({ op: 'check-volume', nudge: true })]);
    expect(lines()).toContainEqual(expect.objectContaining({ message: 'reconciled', correlation_id: 'schedule-event-2' }));
    expect(lines()).toContainEqual(expect.objectContaining({ ebsVolumeIds: [leaked] }));
    expectInvocationLogLines('reconciler');
    const published = metricDocuments();
    expect(published).toContainEqual(expect.objectContaining({ [METRICS.leaked]: 1 }));
    expect(published).toContainEqual(expect.objectContaining({ ReconcilerPasses: 1 }));
  });

  /** An SQS record for `message` as Lambda delivers it: sent to the queue and received from it. */
  async function sampleRecord(message: OperationMessage): Promise<SQSRecord> {
    const { MessageId } = await backend.clients.sqs.send(new SendMessageCommand({ QueueUrl: backend.queueUrl, MessageBody: JSON.stringify(message) }));
    // Others (follow-ups of earlier invocations, now due) are left received.
    const record = (await queued()).find((received) => received.messageId === MessageId);
    expect(record).toBeDefined();
    return record!;
  }
});
