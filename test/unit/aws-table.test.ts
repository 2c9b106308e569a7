import { CreateTableCommand, DescribeTableCommand, DynamoDBClient, ResourceInUseException, type TableDescription } from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, GetQueueAttributesCommand, GetQueueUrlCommand, QueueNameExists, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { ensureQueues, ensureTable, queueAttributes, rateBudgetTableDefinition, tableDefinition } from '../../lib/aws/table.js';
import { QUEUE, TABLE } from '../../lib/settings.js';

describe('table and queue definitions', () => {
  it('the record table: on demand, pk/sk, the instance index projecting every attribute, a stream of both images', () => {
    expect(tableDefinition('records')).toEqual({
      TableName: 'records',
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
        { AttributeName: 'gsi1pk', AttributeType: 'S' },
        { AttributeName: 'gsi1sk', AttributeType: 'S' },
      ],
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: [
        {
          IndexName: TABLE.instanceIndex.name,
          KeySchema: [
            { AttributeName: 'gsi1pk', KeyType: 'HASH' },
            { AttributeName: 'gsi1sk', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
      ],
      StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
    });
    // The rate budget's table: one string key, no stream (taking tokens wakes no watcher).
    expect(rateBudgetTableDefinition('rates')).toEqual({
      TableName: 'rates',
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [{ AttributeName: 'bucket', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'bucket', KeyType: 'HASH' }],
    });
  });

  it('the operation queue dead-letters after maxReceiveCount receives; the dead-letter queue keeps messages longer than it', () => {
    const day = 24 * 3600;
    expect(queueAttributes('arn:aws:sqs:us-east-1:123456789012:dead')).toEqual({
      VisibilityTimeout: String(QUEUE.visibilityTimeoutSeconds),
      MessageRetentionPeriod: String(QUEUE.retentionDays * day),
      RedrivePolicy: JSON.stringify({ deadLetterTargetArn: 'arn:aws:sqs:us-east-1:123456789012:dead', maxReceiveCount: QUEUE.maxReceiveCount }),
    });
    expect(queueAttributes()).toEqual({ VisibilityTimeout: String(QUEUE.visibilityTimeoutSeconds), MessageRetentionPeriod: String(QUEUE.deadLetterRetentionDays * day) });
    expect(QUEUE.deadLetterRetentionDays).toBeGreaterThan(QUEUE.retentionDays);
  });
});

describe('ensureTable against an existing table', () => {
  const client = new DynamoDBClient({ region: 'us-east-1', credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' } });
  const dynamo = mockClient(client);
  const definition = tableDefinition('records');
  const streamArn = 'arn:aws:dynamodb:us-east-1:123456789012:table/records/stream/1';
  /** The table as its definition makes it, changed by `change`. */
  const existing = (change: (table: TableDescription) => void): TableDescription => {
    const table: TableDescription = {
      TableName: 'records',
      TableStatus: 'ACTIVE',
      KeySchema: definition.KeySchema,
      GlobalSecondaryIndexes: definition.GlobalSecondaryIndexes!.map((index) => ({ ...index, IndexStatus: 'ACTIVE' })),
      StreamSpecification: definition.StreamSpecification,
      LatestStreamArn: streamArn,
    };
    change(table);
    return table;
  };
  beforeEach(() => {
    dynamo.reset();
    dynamo.on(CreateTableCommand).rejects(new ResourceInUseException({ message: 'Table already exists: records', $metadata: {} }));
  });

  it('takes one as defined, and refuses one whose instance index does not project every attribute', async () => {
    dynamo.on(DescribeTableCommand).resolves({ Table: existing(() => {}) });
    expect(await ensureTable(client, 'records')).toEqual({ tableName: 'records', streamArn: 'arn:aws:dynamodb:us-east-1:123456789012:table/records/stream/1' });
    dynamo.on(DescribeTableCommand).resolves({ Table: existing((table) => void (table.GlobalSecondaryIndexes![0]!.Projection = { ProjectionType: 'KEYS_ONLY' })) });
    await expect(ensureTable(client, 'records')).rejects.toThrow(/its index byInstance has keys gsi1pk \(HASH\), gsi1sk \(RANGE\) projecting KEYS_ONLY, not .* projecting ALL/);
  });

  it('passes on a refused CreateTable other than "already exists", without waiting for the table', async () => {
    dynamo.reset();
    dynamo.on(CreateTableCommand).rejects(Object.assign(new Error('User is not authorized to perform: dynamodb:CreateTable'), { name: 'AccessDeniedException' }));
    await expect(ensureTable(client, 'records')).rejects.toThrow(/not authorized/);
    expect(dynamo.commandCalls(DescribeTableCommand)).toHaveLength(0);
  });

  it('takes one with other indexes beside its instance index, whatever their order', async () => {
    const other = { IndexName: 'byOwner', KeySchema: [{ AttributeName: 'owner', KeyType: 'HASH' as const }], Projection: { ProjectionType: 'KEYS_ONLY' as const }, IndexStatus: 'ACTIVE' as const };
    dynamo.on(DescribeTableCommand).resolves({ Table: existing((table) => void table.GlobalSecondaryIndexes!.unshift(other)) });
    expect(await ensureTable(client, 'records')).toEqual({ tableName: 'records', streamArn });
  });

  it('refuses one whose instance index has other keys, projecting every attribute: the API queries it by instance', async () => {
    dynamo.on(DescribeTableCommand).resolves({
      Table: existing((table) => void (table.GlobalSecondaryIndexes![0]!.KeySchema = [{ AttributeName: 'gsi1pk', KeyType: 'HASH' }])),
    });
    await expect(ensureTable(client, 'records')).rejects.toThrow(
      'table records exists but its index byInstance has keys gsi1pk (HASH) projecting ALL, not gsi1pk (HASH), gsi1sk (RANGE) projecting ALL; ' +
        'delete it to have it created as the provisioner needs',
    );
  });

  it('refuses one whose stream is turned off, even described with the ARN of the last stream it had', async () => {
    // A stream turned off stays readable for 24 hours: a description may still name it.
    dynamo.on(DescribeTableCommand).resolves({
      Table: existing((table) => void (table.StreamSpecification = { StreamEnabled: false })),
    });
    await expect(ensureTable(client, 'records')).rejects.toThrow('table records exists but it has no stream; delete it to have it created as the provisioner needs');
  });

  it('refuses one described with its stream on but no stream ARN, as one without a stream: the watcher has no stream to read', async () => {
    dynamo.on(DescribeTableCommand).resolves({ Table: existing((table) => void delete table.LatestStreamArn) });
    await expect(ensureTable(client, 'records')).rejects.toThrow('table records exists but it has no stream; delete it to have it created as the provisioner needs');
  });

  it('refuses one whose stream carries keys only, naming its stream: the watcher compares the old image with the new', async () => {
    dynamo.on(DescribeTableCommand).resolves({
      Table: existing((table) => void (table.StreamSpecification = { StreamEnabled: true, StreamViewType: 'KEYS_ONLY' })),
    });
    await expect(ensureTable(client, 'records')).rejects.toThrow(
      'table records exists but its stream is KEYS_ONLY, not NEW_AND_OLD_IMAGES; delete it to have it created as the provisioner needs',
    );
  });
});

describe('ensureQueues against an existing queue', () => {
  it('names the attributes that differ, reading a redrive policy by what it says rather than how its JSON is spaced or typed', async () => {
    const client = new SQSClient({ region: 'us-east-1', credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' } });
    const sqs = mockClient(client);
    const dlqArn = 'arn:aws:sqs:us-east-1:123456789012:operations-dlq';
    sqs.on(CreateQueueCommand, { QueueName: 'operations-dlq' }).resolves({ QueueUrl: 'https://sqs/operations-dlq' });
    sqs.on(CreateQueueCommand, { QueueName: 'operations' }).rejects(new QueueNameExists({ message: 'The specified queue already exists', $metadata: {} }));
    sqs.on(GetQueueUrlCommand).resolves({ QueueUrl: 'https://sqs/operations' });
    sqs.on(GetQueueAttributesCommand, { QueueUrl: 'https://sqs/operations-dlq' }).resolves({ Attributes: { QueueArn: dlqArn } });
    sqs.on(GetQueueAttributesCommand, { QueueUrl: 'https://sqs/operations' }).resolves({
      Attributes: {
        VisibilityTimeout: '30',
        MessageRetentionPeriod: String(QUEUE.retentionDays * 24 * 3600),
        RedrivePolicy: `{ "deadLetterTargetArn": "${dlqArn}", "maxReceiveCount": "${QUEUE.maxReceiveCount}" }`,
      },
    });
    const refusal = await ensureQueues(client, { queueName: 'operations', deadLetterQueueName: 'operations-dlq' }).catch((e: unknown) => e as Error);
    expect(refusal).toBeInstanceOf(Error);
    expect((refusal as Error).message).toBe(
      `queue operations exists but its VisibilityTimeout is 30, not ${QUEUE.visibilityTimeoutSeconds}; delete it to have it created as the provisioner needs`,
    );
    sqs.restore();
  });
});
