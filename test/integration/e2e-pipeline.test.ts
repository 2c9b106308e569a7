/**
 * The whole pipeline against moto, through the real HTTP API and the real pollers, with the local
 * runtime's moto backend: records in DynamoDB (stream → watcher), operations on SQS (→ executor),
 * volumes and instances in EC2.
 *
 * moto differs from EC2 in ways these tests cannot see: its volumes are available and attached at
 * once, it ignores ClientToken, and it checks neither AZ nor device clashes. The engine's handling
 * of the real behaviour is covered on the EBS model (test/unit/engine-*.test.ts) and, for EC2's
 * error responses, with aws-sdk-client-mock (test/unit/aws-ec2-*.test.ts).
 */
import { AttachVolumeCommand, DescribeImagesCommand, DescribeVolumesCommand, DetachVolumeCommand, ModifyVolumeCommand, RunInstancesCommand } from '@aws-sdk/client-ec2';
import { GetQueueAttributesCommand, PurgeQueueCommand } from '@aws-sdk/client-sqs';
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { AwsClients } from '../../lib/aws/clients.js';
import { SqsOperationQueue } from '../../lib/aws/sqs-queue.js';
import { OWNERSHIP_TAGS } from '../../lib/settings.js';
import { RecordingLog } from '../../lib/memory/log.js';
import { startLocalRuntime, type LocalRuntime } from '../../lib/local/runtime.js';
import { DEFAULT_ENGINE_CONFIG, type ProgressCheck } from '../../lib/engine/config.js';
import type { OperationKind } from '../../lib/engine/ports.js';
import { describeWithMoto, motoClients } from '../support/moto.js';

const quick: ProgressCheck = { firstSeconds: 1, growth: 0.5, maxSeconds: 2 };
const PROGRESS: Record<OperationKind, ProgressCheck> = {
  'create-volume': quick,
  'check-volume': quick,
  'modify-volume': quick,
  'tag-volume': quick,
  'delete-volume': quick,
  attach: quick,
  'check-attachment': quick,
  detach: quick,
};

interface Json {
  status: number;
  body: Record<string, unknown> & { status?: { state: string; message?: string; code?: string } };
}

describeWithMoto('pipeline end to end on moto', (endpoint) => {
  let runtime: LocalRuntime;
  let clients: AwsClients;
  const log = new RecordingLog();

  beforeAll(async () => {
    runtime = await startLocalRuntime({
      backend: 'moto',
      endpoint: endpoint(),
      port: 0,
      demoInstances: 2,
      log,
      pollIdleMs: 50,
      reconcileEveryMs: 3_600_000,
      reconcilerOverdueAfterMs: 0,
      engineConfig: { progressChecks: PROGRESS, backoff: { baseSeconds: 1, capSeconds: 2 } },
    });
    clients = motoClients(endpoint());
  }, 60_000);

  afterAll(async () => {
    await runtime?.stop();
  });

  async function api(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<Json> {
    const response = await fetch(`${runtime.apiUrl}${path}`, {
      method,
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body), headers: { 'Content-Type': contentType } }),
    });
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as Json['body']) : {} };
  }

  /** Polls until `check` holds (bounded), returning the last value. */
  async function until<T>(read: () => Promise<T>, check: (value: T) => boolean, what: string, timeoutMs = 20_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    let value = await read();
    while (!check(value)) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
      value = await read();
    }
    return value;
  }

  const volume = (id: string) => api('GET', `/volumes/${id}`);
  const volumeState = (id: string, state: string) => until(() => volume(id), (v) => v.body.status?.state === state, `${id} ${state}`);
  const attachmentOf = (v: Json, instanceId: string) =>
    (v.body.attachments as { instanceId: string; device?: string; status: { state: string } }[] | undefined)?.find((a) => a.instanceId === instanceId);
  const attachmentState = (id: string, instanceId: string, state: string) =>
    until(() => volume(id), (v) => attachmentOf(v, instanceId)?.status.state === state, `${id} on ${instanceId} ${state}`);
  const gone = (id: string) => until(() => volume(id), (v) => v.status === 404, `${id} gone`);

  async function ec2VolumesOf(recordId: string) {
    const { Volumes } = await clients.ec2.send(
      new DescribeVolumesCommand({ Filters: [{ Name: `tag:${OWNERSHIP_TAGS.record}`, Values: [recordId] }] }),
    );
    return Volumes ?? [];
  }

  it('runs a full lifecycle: create, attach, grow, detach, delete', async () => {
    const [instance] = runtime.instanceIds;
    const created = await api('POST', '/volumes', { volumeId: 'life', spec: { sizeGiB: 10, volumeType: 'gp3', availabilityZone: 'us-east-1a' } });
    expect(created.status).toBe(201);
    const available = await volumeState('life', 'available');
    expect(available.body.ebsVolumeId).toMatch(/^vol-/);

    expect((await api('PUT', `/volumes/life/attachments/${instance}`)).status).toBeLessThan(300);
    const attached = await attachmentState('life', instance!, 'attached');
    expect(attachmentOf(attached, instance!)?.device).toMatch(/^\/dev\//);

    expect((await api('PATCH', '/volumes/life', { sizeGiB: 20 })).status).toBe(200);
    const grown = await until(() => volume('life'), (v) => v.body.observedGeneration === 2, 'grown to generation 2');
    expect((grown.body.observed as { sizeGiB: number }).sizeGiB).toBe(20);
    expect((await ec2VolumesOf('life'))[0]?.Size).toBe(20);

    expect((await api('DELETE', `/volumes/life/attachments/${instance}`)).status).toBeLessThan(300);
    await until(() => volume('life'), (v) => attachmentOf(v, instance!) === undefined, 'attachment removed');
    expect((await api('DELETE', '/volumes/life')).status).toBeLessThan(300);
    await gone('life');
    expect(await ec2VolumesOf('life')).toEqual([]);
    // The executor took its EC2 tokens from the shared rate budget's table, over the wire.
    for (const bucket of ['CreateVolume', 'AttachVolume', 'DeleteVolume']) {
      const { Item } = await clients.doc.send(new GetCommand({ TableName: runtime.aws!.rateBudgetTableName, Key: { bucket }, ConsistentRead: true }));
      expect(Item).toMatchObject({ bucket, version: expect.any(Number) });
      expect((Item as { tokens: number }).tokens).toBeLessThan(DEFAULT_ENGINE_CONFIG.accountRateBudgets[bucket as 'CreateVolume'].burst);
    }
  });

  it('creates and attaches in one request, in the instance AZ, and gives a second attach to the instance another device', async () => {
    // One after the other: the executor allocates around the devices EC2 reports on the instance.
    // Attaches racing in parallel executor batches rely on EC2 refusing a device in use, which moto
    // does not check; that case runs on the EBS model (test/integration/local-memory-runtime.test.ts).
    const [, instance] = runtime.instanceIds;
    for (const id of ['pair-a', 'pair-b']) {
      const response = await api('POST', '/volumes', { volumeId: id, spec: { sizeGiB: 5, volumeType: 'gp3' }, attachTo: { instanceId: instance } });
      expect(response.status).toBe(201);
      await attachmentState(id, instance!, 'attached');
    }
    const a = await volume('pair-a');
    const b = await volume('pair-b');
    expect(a.body.availabilityZone).toBe('us-east-1a');
    expect(attachmentOf(a, instance!)?.device).toMatch(/^\/dev\//);
    expect(attachmentOf(b, instance!)?.device).not.toBe(attachmentOf(a, instance!)?.device);
    const [ec2] = await ec2VolumesOf('pair-a');
    expect(ec2?.Attachments?.[0]?.InstanceId).toBe(instance);
  });

  it('creates a volume to attach in its instance\'s AZ, not the AZ of the demo instances', async () => {
    // The demo instances are all in us-east-1a: one elsewhere tells the instance's AZ from a default.
    const { Images } = await clients.ec2.send(new DescribeImagesCommand({}));
    const { Instances } = await clients.ec2.send(
      new RunInstancesCommand({ ImageId: Images![0]!.ImageId, InstanceType: 't3.micro', MinCount: 1, MaxCount: 1, Placement: { AvailabilityZone: 'us-east-1b' } }),
    );
    const instance = Instances![0]!.InstanceId!;
    expect((await api('POST', '/volumes', { volumeId: 'zone-b', spec: { sizeGiB: 5, volumeType: 'gp3' }, attachTo: { instanceId: instance } })).status).toBe(201);
    const attached = await attachmentState('zone-b', instance, 'attached');
    expect(attached.body.availabilityZone).toBe('us-east-1b');
    const [ec2] = await ec2VolumesOf('zone-b');
    expect(ec2).toMatchObject({ AvailabilityZone: 'us-east-1b', Attachments: [expect.objectContaining({ InstanceId: instance })] });
  });

  it('deletes a volume that still has attachments: detach first, then delete', async () => {
    const [instance] = runtime.instanceIds;
    expect((await api('POST', '/volumes', { volumeId: 'dying', spec: { sizeGiB: 5, volumeType: 'gp3' }, attachTo: { instanceId: instance } })).status).toBe(201);
    const attached = await attachmentState('dying', instance!, 'attached');
    const ebsVolumeId = attached.body.ebsVolumeId as string;
    // The EC2 calls the executor makes for this volume, in order, whether EC2 takes them or not.
    const calls: string[] = [];
    const { provider } = runtime;
    const { detachVolume, deleteVolume } = provider;
    provider.detachVolume = async (request) => {
      if (request.ebsVolumeId === ebsVolumeId) calls.push(`detach ${request.instanceId}`);
      return detachVolume.call(provider, request);
    };
    provider.deleteVolume = async (id) => {
      if (id === ebsVolumeId) calls.push('delete');
      return deleteVolume.call(provider, id);
    };
    try {
      expect((await api('DELETE', '/volumes/dying')).status).toBeLessThan(300);
      await gone('dying');
    } finally {
      provider.detachVolume = detachVolume;
      provider.deleteVolume = deleteVolume;
    }
    // A call repeated (a message delivered twice) is one step; none of the delete's comes before the detach.
    expect(calls.filter((call, i) => call !== calls[i - 1])).toEqual([`detach ${instance}`, 'delete']);
    expect(await ec2VolumesOf('dying')).toEqual([]);
  });

  it('gives a record written straight into the table with a bad spec an error status, and makes no EC2 call', async () => {
    await clients.doc.send(
      new PutCommand({
        TableName: runtime.aws!.tableName,
        Item: { pk: 'VOLUME#direct-bad', sk: 'VOLUME', kind: 'volume', volumeId: 'direct-bad', spec: { sizeGiB: 10, volumeType: 'gp3', iops: 999_999 }, life: 'alive', generation: 1 },
      }),
    );
    // The watcher writes its rejection on the item.
    const item = async () =>
      (await clients.doc.send(new GetCommand({ TableName: runtime.aws!.tableName, Key: { pk: 'VOLUME#direct-bad', sk: 'VOLUME' }, ConsistentRead: true }))).Item as
        | { status?: { state: string; code?: string; message?: string } }
        | undefined;
    const rejected = await until(item, (found) => found?.status?.state === 'error', 'direct-bad rejected');
    expect(rejected?.status).toMatchObject({ code: 'InvalidRecord', message: expect.stringContaining('spec.iops') });
    expect(await ec2VolumesOf('direct-bad')).toEqual([]);
    // The API names the record's faults rather than serving it.
    const read = await volume('direct-bad');
    expect(read.status).toBe(409);
    expect(read.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'record.spec.iops' })]));
  });

  it('rejects a record written straight into the table whatever its version holds: text, or a number too large to read exactly', async () => {
    const base = { sk: { S: 'VOLUME' }, kind: { S: 'volume' }, life: { S: 'alive' }, generation: { N: '1' } };
    const spec = { M: { sizeGiB: { N: '10' }, volumeType: { S: 'gp3' }, iops: { N: '999999' } } };
    for (const [id, version] of [['odd-text', { S: 'one' }], ['odd-huge', { N: '12345678901234567890' }]] as const) {
      await clients.dynamo.send(new PutItemCommand({ TableName: runtime.aws!.tableName, Item: { ...base, pk: { S: `VOLUME#${id}` }, volumeId: { S: id }, spec, version } }));
    }
    for (const id of ['odd-text', 'odd-huge']) {
      const item = async () =>
        (await clients.doc.send(new GetCommand({ TableName: runtime.aws!.tableName, Key: { pk: `VOLUME#${id}`, sk: 'VOLUME' }, ConsistentRead: true }))).Item as
          | { status?: { state: string; code?: string } }
          | undefined;
      const rejected = await until(item, (found) => found?.status?.state === 'error', `${id} rejected`);
      expect(rejected?.status).toMatchObject({ code: 'InvalidRecord' });
      expect(await ec2VolumesOf(id)).toEqual([]);
    }
  });

  it('answers a malformed request with a 4xx and writes nothing', async () => {
    const count = async () => (await clients.doc.send(new ScanCommand({ TableName: runtime.aws!.tableName, Select: 'COUNT' }))).Count;
    const before = await count();
    const bad = await api('POST', '/volumes', { volumeId: 'bad', spec: { sizeGiB: 'big', volumeType: 'gp3' } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'spec.sizeGiB' })]));
    expect((await api('POST', '/volumes', '{"volumeId":', 'application/json')).status).toBe(400);
    expect(await count()).toBe(before);
    expect((await volume('bad')).status).toBe(404);
  });

  const visibleMessages = async () =>
    Number(
      (await clients.sqs.send(new GetQueueAttributesCommand({ QueueUrl: runtime.aws!.queueUrl, AttributeNames: ['ApproximateNumberOfMessages'] })))
        .Attributes?.ApproximateNumberOfMessages ?? 0,
    );

  /** Work the pipeline still holds: messages on the operation queue (waiting, in flight, delayed) and claimed records. */
  const pipelineWork = async () => {
    const { Attributes } = await clients.sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: runtime.aws!.queueUrl,
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'],
      }),
    );
    const claimed = await clients.doc.send(
      new ScanCommand({ TableName: runtime.aws!.tableName, FilterExpression: 'attribute_exists(#claim)', ExpressionAttributeNames: { '#claim': 'claim' }, ConsistentRead: true }),
    );
    return {
      waiting: Number(Attributes?.ApproximateNumberOfMessages ?? 0),
      inFlight: Number(Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0),
      delayed: Number(Attributes?.ApproximateNumberOfMessagesDelayed ?? 0),
      claimed: claimed.Items?.length ?? 0,
    };
  };

  it('does not make a second volume when the same operation message is delivered again, before or after the create', async () => {
    const queue = new SqsOperationQueue({ client: clients.sqs, queueUrl: runtime.aws!.queueUrl });
    const message = { op: 'create-volume' as const, key: { kind: 'volume' as const, volumeId: 'redelivered' } };
    // Copies waiting together with the watcher's own message: the executors see them in one batch
    // or in parallel batches, and the record's claim lets only one of them call CreateVolume.
    await runtime.queuePoller.stop();
    try {
      await api('POST', '/volumes', { volumeId: 'redelivered', spec: { sizeGiB: 5, volumeType: 'gp3', availabilityZone: 'us-east-1a' } });
      await until(visibleMessages, (n) => n > 0, 'the watcher to enqueue the create');
      await queue.send([{ message, delaySeconds: 0 }, { message, delaySeconds: 0 }, { message, delaySeconds: 0 }]);
    } finally {
      runtime.queuePoller.start();
    }
    await volumeState('redelivered', 'available');
    // And late copies, once the volume exists.
    await queue.send([{ message, delaySeconds: 0 }, { message, delaySeconds: 0 }]);
    await until(visibleMessages, (n) => n === 0, 'the late copies to be consumed');
    // Only once nothing is left that could still call CreateVolume: no message waiting or in
    // flight, and no record claimed by an executor. Delayed messages do not count: other records of
    // this runtime keep their scheduled checks, and a delayed copy of this one is planned on the
    // record as it is when it comes (available: nothing to create).
    await until(pipelineWork, ({ waiting, inFlight, claimed }) => waiting + inFlight + claimed === 0, 'the pipeline to be idle');
    expect(await ec2VolumesOf('redelivered')).toHaveLength(1);
    expect((await volume('redelivered')).body.status?.state).toBe('available');
  });

  it('re-enqueues, from the reconciler, a record whose message was lost', async () => {
    await runtime.queuePoller.stop();
    let report: Awaited<ReturnType<LocalRuntime['reconcileNow']>>;
    try {
      expect((await api('POST', '/volumes', { volumeId: 'lost', spec: { sizeGiB: 5, volumeType: 'gp3', availabilityZone: 'us-east-1a' } })).status).toBe(201);
      await until(visibleMessages, (n) => n > 0, 'the watcher to enqueue the create');
      await clients.sqs.send(new PurgeQueueCommand({ QueueUrl: runtime.aws!.queueUrl }));
      expect(await visibleMessages()).toBe(0);
      report = await runtime.reconcileNow();
    } finally {
      // Restarted whatever happened above, with no check here to hide why it failed.
      runtime.queuePoller.start();
    }
    expect(report.requeued.map((r) => r.key)).toContain('volume/lost');
    await volumeState('lost', 'available');
    expect(await ec2VolumesOf('lost')).toHaveLength(1);
  });

  it('notices, from the reconciler, a volume grown and one attached again under another device name outside the system', async () => {
    const [instance] = runtime.instanceIds;
    await api('POST', '/volumes', { volumeId: 'outside', spec: { sizeGiB: 5, volumeType: 'gp3', availabilityZone: 'us-east-1a' }, attachTo: { instanceId: instance } });
    const attached = await attachmentState('outside', instance!, 'attached');
    const ebsVolumeId = attached.body.ebsVolumeId as string;
    const device = attachmentOf(attached, instance!)!.device!;
    const renamed = device === '/dev/sdz' ? '/dev/sdy' : '/dev/sdz';

    // In the console: grown, detached and attached again under another name.
    await clients.ec2.send(new ModifyVolumeCommand({ VolumeId: ebsVolumeId, Size: 8 }));
    await clients.ec2.send(new DetachVolumeCommand({ VolumeId: ebsVolumeId, InstanceId: instance }));
    await clients.ec2.send(new AttachVolumeCommand({ VolumeId: ebsVolumeId, InstanceId: instance, Device: renamed }));
    const report = await runtime.reconcileNow();
    expect(report.requeued).toEqual(
      expect.arrayContaining([
        { key: 'volume/outside', reason: 'EC2 reports sizeGiB 8 (the record observed 5)' },
        { key: `attachment/outside/${instance}`, reason: `EC2 shows ${ebsVolumeId} attached to ${instance} as ${renamed}, the record says ${device}` },
      ]),
    );
    const noticed = await until(
      () => volume('outside'),
      (v) => v.body.status?.code === 'InvalidSpecChange' && attachmentOf(v, instance!)?.device === renamed,
      'the grow and the new device name recorded',
    );
    expect(noticed.body.status?.message).toBe('spec.sizeGiB: EBS volumes can only grow: 8 GiB cannot become 5 GiB');
    expect(noticed.body.observed).toMatchObject({ sizeGiB: 8 });

    // The client asks for what EC2 holds: the rejection goes, with no modification.
    expect((await api('PATCH', '/volumes/outside', { sizeGiB: 8 })).status).toBe(200);
    const settled = await until(() => volume('outside'), (v) => v.body.observedGeneration === 2, 'the spec taken as held');
    expect(settled.body.status?.code).toBeUndefined();
    expect((await ec2VolumesOf('outside'))[0]?.Size).toBe(8);
  });
});
