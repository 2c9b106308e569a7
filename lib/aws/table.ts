/**
 * The table and the queues, defined from lib/settings.ts (the same settings the CDK stack reads),
 * and created idempotently where nothing deploys them: the local runtime on moto and the tests.
 */
import {
  CreateTableCommand,
  DescribeTableCommand,
  ResourceInUseException,
  waitUntilTableExists,
  type AttributeDefinition,
  type CreateTableCommandInput,
  type DynamoDBClient,
  type KeySchemaElement,
  type TableDescription,
} from '@aws-sdk/client-dynamodb';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  QueueAttributeName,
  QueueNameExists,
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

/**
 * Creates the shared rate budget's table unless it exists, and waits until it is active. A table
 * that exists with other keys (or its key of another type) is refused: the budget's conditional
 * writes would fail on every take.
 */
export async function ensureRateBudgetTable(dynamo: DynamoDBClient, tableName: string): Promise<void> {
  await ensureAsDefined(dynamo, rateBudgetTableDefinition(tableName), 'the rate budget');
}

/**
 * Creates the table unless it exists, waits until it is active, and returns its description; one
 * that exists but differs from `definition` (`tableDifferences`) is refused, naming what `neededBy` needs.
 */
async function ensureAsDefined(dynamo: DynamoDBClient, definition: CreateTableCommandInput, neededBy: string): Promise<TableDescription | undefined> {
  await createUnlessExists(dynamo, definition);
  const { Table } = await dynamo.send(new DescribeTableCommand({ TableName: definition.TableName }));
  const differences = tableDifferences(Table, definition);
  if (differences.length > 0) {
    throw new Error(`table ${definition.TableName} exists but ${differences.join('; ')}; delete it to have it created as ${neededBy} needs`);
  }
  return Table;
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

/** A key schema as written in messages, e.g. `gsi1pk (HASH), gsi1sk (RANGE)`. */
function keysText(keys: readonly KeySchemaElement[] | undefined): string {
  return (keys ?? []).map((k) => `${k.AttributeName} (${k.KeyType})`).join(', ');
}

/** The type (`S`, `N` or `B`) `definitions` give the attribute `name`, if any. */
function attributeType(definitions: readonly AttributeDefinition[] | undefined, name: string | undefined): string | undefined {
  return definitions?.find((d) => d.AttributeName === name)?.AttributeType;
}

/**
 * How an existing table differs from its definition in what the engine relies on: its keys and
 * their types (a key of another type fails every write), the definition's indexes (the instance
 * index, queried with all attributes) and, when the definition has one, a stream carrying both
 * images (the watcher compares them). Empty when it does not.
 */
function tableDifferences(table: TableDescription | undefined, definition: CreateTableCommandInput): string[] {
  const differences: string[] = [];
  if (keysText(table?.KeySchema) !== keysText(definition.KeySchema)) {
    differences.push(`its keys are ${keysText(table?.KeySchema) || 'none'}, not ${keysText(definition.KeySchema)}`);
  }
  for (const { AttributeName: name, AttributeType: wanted } of definition.AttributeDefinitions ?? []) {
    const type = attributeType(table?.AttributeDefinitions, name);
    // A key the table lacks has no type there: the key schemas' difference names it.
    if (type !== undefined && type !== wanted) differences.push(`its key attribute ${name} is of type ${type}, not ${wanted}`);
  }
  for (const wanted of definition.GlobalSecondaryIndexes ?? []) {
    const index = table?.GlobalSecondaryIndexes?.find((i) => i.IndexName === wanted.IndexName);
    if (!index) differences.push(`it has no index ${wanted.IndexName}`);
    else if (keysText(index.KeySchema) !== keysText(wanted.KeySchema) || index.Projection?.ProjectionType !== wanted.Projection?.ProjectionType) {
      differences.push(
        `its index ${wanted.IndexName} has keys ${keysText(index.KeySchema)} projecting ${index.Projection?.ProjectionType ?? 'nothing'}, ` +
          `not ${keysText(wanted.KeySchema)} projecting ${wanted.Projection?.ProjectionType}`,
      );
    }
  }
  if (definition.StreamSpecification === undefined) return differences;
  const stream = table?.StreamSpecification;
  if (stream?.StreamEnabled !== true || table?.LatestStreamArn === undefined) differences.push('it has no stream');
  else if (stream.StreamViewType !== TABLE.streamView) differences.push(`its stream is ${stream.StreamViewType}, not ${TABLE.streamView}`);
  return differences;
}

/**
 * Creates the table unless it exists, waits until it is active, and returns its stream ARN. A
 * table that exists but differs from the definition is refused: the watcher cannot work on it.
 */
export async function ensureTable(dynamo: DynamoDBClient, tableName: string): Promise<TableInfo> {
  const table = await ensureAsDefined(dynamo, tableDefinition(tableName), 'the provisioner');
  // tableDifferences names a table without a stream ARN; this only tells the compiler.
  if (table?.LatestStreamArn === undefined) throw new Error(`table ${tableName} has no stream`);
  return { tableName, streamArn: table.LatestStreamArn };
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

/** An attribute's value as compared: a redrive policy by what it says, not how its JSON is spaced or typed. */
function comparable(name: string, value: string | undefined): string | undefined {
  if (name !== QueueAttributeName.RedrivePolicy || value === undefined) return value;
  try {
    const { deadLetterTargetArn, maxReceiveCount } = JSON.parse(value) as { deadLetterTargetArn?: unknown; maxReceiveCount?: unknown };
    return JSON.stringify([deadLetterTargetArn, String(maxReceiveCount)]);
  } catch {
    return value;
  }
}

/**
 * Creates the queue unless it exists, returning its URL. CreateQueue is idempotent for identical
 * attributes; a queue that exists with other ones makes it fail, and it is refused, naming them
 * (SQS says only "The specified queue already exists").
 */
async function createQueue(sqs: SQSClient, queueName: string, attributes: Partial<Record<QueueAttributeName, string>>): Promise<string> {
  try {
    return (await sqs.send(new CreateQueueCommand({ QueueName: queueName, Attributes: attributes }))).QueueUrl!;
  } catch (error) {
    if (!(error instanceof QueueNameExists)) throw error;
    const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: queueName }));
    const { Attributes: current = {} }: { Attributes?: Record<string, string> } = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl, AttributeNames: Object.keys(attributes) as QueueAttributeName[] }),
    );
    const differences = Object.entries(attributes as Record<string, string>)
      .filter(([name, wanted]) => comparable(name, current[name]) !== comparable(name, wanted))
      .map(([name, wanted]) => `its ${name} is ${current[name] ?? 'unset'}, not ${wanted}`);
    throw new Error(
      `queue ${queueName} exists but ${differences.length > 0 ? differences.join('; ') : 'with other attributes'}; delete it to have it created as the provisioner needs`,
      { cause: error },
    );
  }
}

/**
 * Creates the dead-letter queue and the operation queue (with its redrive policy) unless they
 * exist. One that exists with other attributes is refused, with a message saying which differ.
 */
export async function ensureQueues(
  sqs: SQSClient,
  names: { queueName: string; deadLetterQueueName: string },
): Promise<QueueInfo> {
  const deadLetterQueueUrl = await createQueue(sqs, names.deadLetterQueueName, queueAttributes());
  const deadLetterQueueArn = await queueArn(sqs, deadLetterQueueUrl);
  const queueUrl = await createQueue(sqs, names.queueName, queueAttributes(deadLetterQueueArn));
  return { queueUrl, queueArn: await queueArn(sqs, queueUrl), deadLetterQueueUrl, deadLetterQueueArn };
}
