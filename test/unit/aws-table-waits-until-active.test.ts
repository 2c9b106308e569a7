import { CreateTableCommand, DescribeTableCommand, DynamoDBClient, type TableDescription } from '@aws-sdk/client-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ensureTable, tableDefinition } from '../../lib/aws/table.js';

const client = new DynamoDBClient({ region: 'us-east-1', credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' } });
const dynamo = mockClient(client);
const definition = tableDefinition('records');
const described = (TableStatus: 'CREATING' | 'ACTIVE'): TableDescription => ({
  TableName: 'records',
  TableStatus,
  KeySchema: definition.KeySchema,
  GlobalSecondaryIndexes: definition.GlobalSecondaryIndexes!.map((index) => ({ ...index, IndexStatus: TableStatus })),
  StreamSpecification: definition.StreamSpecification,
  LatestStreamArn: 'arn:aws:dynamodb:us-east-1:123456789012:table/records/stream/1',
});

describe('ensureTable creating a table', () => {
  beforeEach(() => {
    dynamo.reset();
    vi.useFakeTimers();
  });
  afterEach(() => vi.useRealTimers());

  it('returns only once DynamoDB describes the table as ACTIVE, not while it is still CREATING', async () => {
    dynamo.on(CreateTableCommand).resolves({ TableDescription: described('CREATING') });
    dynamo.on(DescribeTableCommand).resolvesOnce({ Table: described('CREATING') }).resolvesOnce({ Table: described('CREATING') }).resolves({ Table: described('ACTIVE') });
    let done = false;
    const ensured = ensureTable(client, 'records').then((info) => {
      done = true;
      return info;
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(await ensured).toEqual({ tableName: 'records', streamArn: 'arn:aws:dynamodb:us-east-1:123456789012:table/records/stream/1' });
    // Described again until DynamoDB answers ACTIVE (twice CREATING first).
    expect(dynamo.commandCalls(DescribeTableCommand).length).toBeGreaterThanOrEqual(3);
  });
});
