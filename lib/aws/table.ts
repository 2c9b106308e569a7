/**
 * The table and the queues, defined from lib/settings.ts (the same settings the CDK stack reads),
 * and created idempotently where nothing deploys them: the local runtime on moto and the tests.
 */
import {
  CreateTableCommand,
  DescribeTableCommand,
  ResourceInUseException,
  ResourceNotFoundException,
  waitUntilTableExists,
  type CreateTableCommandInput,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  QueueAttributeName,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { QUEUE, RATE_BUDGET_TABLE, TABLE } from '../settings.js';

/** CreateTable input: pk/sk, the instance index, a NEW_AND_OLD_IMAGES stream, on-demand billing. */
export function tableDefinition(tableName: string): CreateTableCommandInput {
  const index = TABLE.instanceIndex;
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [
      { AttributeName: TABLE.partitionKey, AttributeType: 'S' },
      { AttributeName: TABLE.sortKey, AttributeType: 'S' },
      { AttributeName: index.partitionKey, AttributeType: 'S' },
      { AttributeName: index.sortKey, AttributeType: 'S' },
    ],
    KeySchema: [
      { AttributeName: TABLE.partitionKey, KeyType: 'HASH' },
      { AttributeName: TABLE.sortKey, KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: [
      {
        IndexName: index.name,
        KeySchema: [
          { AttributeName: index.partitionKey, KeyType: 'HASH' },
          { AttributeName: index.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      },
    ],
    StreamSpecification: { StreamEnabled: true, StreamViewType: TABLE.streamView },
  };
}

const TABLE_WAIT_SECONDS = 60;

/** CreateTable input of the shared rate budget's table: one string key, on-demand, no stream. */
export function rateBudgetTableDefinition(tableName: string): CreateTableCommandInput {
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [{ AttributeName: RATE_BUDGET_TABLE.partitionKey, AttributeType: 'S' }],
    KeySchema: [{ AttributeName: RATE_BUDGET_TABLE.partitionKey, KeyType: 'HASH' }],
  };
}

/** Creates the shared rate budget's table unless it exists, and waits until it is active. */
export async function ensureRateBudgetTable(dynamo: DynamoDBClient, tableName: string): Promise<void> {
  await createUnlessExists(dynamo, rateBudgetTableDefinition(tableName));
}

async function createUnlessExists(dynamo: DynamoDBClient, definition: CreateTableCommandInput): Promise<void> {
  try {
    await dynamo.send(new CreateTableCommand(definition));
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
  }
  await waitUntilTableExists({ client: dynamo, maxWaitTime: TABLE_WAIT_SECONDS, minDelay: 1 }, { TableName: definition.TableName });
}

export interface TableInfo {
  tableName: string;
  /** ARN of the table's stream, for the stream poller. */
  streamArn: string;
}

/** Creates the table unless it exists, waits until it is active, and returns its stream ARN. */
export async function ensureTable(dynamo: DynamoDBClient, tableName: string): Promise<TableInfo> {
  await createUnlessExists(dynamo, tableDefinition(tableName));
  const { Table } = await dynamo.send(new DescribeTableCommand({ TableName: tableName }));
  const streamArn = Table?.LatestStreamArn;
  if (streamArn === undefined) {
    throw new ResourceNotFoundException({
      message: `table ${tableName} exists but has no stream; it must be created with a ${TABLE.streamView} stream`,
      $metadata: {},
    });
  }
  return { tableName, streamArn };
}

/**
 * Queue attributes: visibility timeout, retention, and for the operation queue (given its
 * dead-letter queue's ARN) the redrive policy; the dead-letter queue keeps messages longer.
 */
export function queueAttributes(deadLetterQueueArn?: string): Partial<Record<QueueAttributeName, string>> {
  const retentionDays = deadLetterQueueArn === undefined ? QUEUE.deadLetterRetentionDays : QUEUE.retentionDays;
  return {
    VisibilityTimeout: String(QUEUE.visibilityTimeoutSeconds),
    MessageRetentionPeriod: String(retentionDays * 24 * 3600),
    ...(deadLetterQueueArn === undefined
      ? {}
      : {
          RedrivePolicy: JSON.stringify({
            deadLetterTargetArn: deadLetterQueueArn,
            maxReceiveCount: QUEUE.maxReceiveCount,
          }),
        }),
  };
}

export interface QueueInfo {
  queueUrl: string;
  queueArn: string;
  deadLetterQueueUrl: string;
  deadLetterQueueArn: string;
}

async function queueArn(sqs: SQSClient, queueUrl: string): Promise<string> {
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: [QueueAttributeName.QueueArn] }),
  );
  const arn = Attributes?.QueueArn;
  if (arn === undefined) throw new Error(`queue ${queueUrl} reported no ARN`);
  return arn;
}

/**
 * Creates the dead-letter queue and the operation queue (with its redrive policy) unless they
 * exist. CreateQueue is idempotent for identical attributes; a queue that exists with different
 * attributes makes it fail, which is surfaced rather than silently tolerated.
 */
export async function ensureQueues(
  sqs: SQSClient,
  names: { queueName: string; deadLetterQueueName: string },
): Promise<QueueInfo> {
  const dlq = await sqs.send(new CreateQueueCommand({ QueueName: names.deadLetterQueueName, Attributes: queueAttributes() }));
  const deadLetterQueueUrl = dlq.QueueUrl!;
  const deadLetterQueueArn = await queueArn(sqs, deadLetterQueueUrl);
  const main = await sqs.send(
    new CreateQueueCommand({ QueueName: names.queueName, Attributes: queueAttributes(deadLetterQueueArn) }),
  );
  const queueUrl = main.QueueUrl!;
  return { queueUrl, queueArn: await queueArn(sqs, queueUrl), deadLetterQueueUrl, deadLetterQueueArn };
}
