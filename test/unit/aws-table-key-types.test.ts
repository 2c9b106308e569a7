import { CreateTableCommand, DescribeTableCommand, DynamoDBClient, ResourceInUseException, type TableDescription } from '@aws-sdk/client-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { ensureRateBudgetTable, ensureTable, rateBudgetTableDefinition, tableDefinition } from '../../lib/aws/table.js';

const client = new DynamoDBClient({ region: 'us-east-1', credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' } });
const dynamo = mockClient(client);
const definition = tableDefinition('records');
const streamArn = 'arn:aws:dynamodb:us-east-1:123456789012:table/records/stream/1';
const recordTable = (AttributeDefinitions: TableDescription['AttributeDefinitions']): TableDescription => ({
  TableName: 'records',
  TableStatus: 'ACTIVE',
  AttributeDefinitions,
  KeySchema: definition.KeySchema,
  GlobalSecondaryIndexes: definition.GlobalSecondaryIndexes!.map((index) => ({ ...index, IndexStatus: 'ACTIVE' })),
  StreamSpecification: definition.StreamSpecification,
  LatestStreamArn: streamArn,
});

/** Every key the system writes is a string: a table whose key of that name holds numbers refuses every write (a type mismatch). */
describe('a table that exists with keys of the names defined but another type', () => {
  beforeEach(() => {
    dynamo.reset();
    dynamo.on(CreateTableCommand).rejects(new ResourceInUseException({ message: 'Table already exists', $metadata: {} }));
  });

  it('is refused as the record table, naming the key and its type; its index key too', async () => {
    const types = (pk: string, gsi1sk: string) => [
      { AttributeName: 'pk', AttributeType: pk },
      { AttributeName: 'sk', AttributeType: 'S' },
      { AttributeName: 'gsi1pk', AttributeType: 'S' },
      { AttributeName: 'gsi1sk', AttributeType: gsi1sk },
    ] as TableDescription['AttributeDefinitions'];
    dynamo.on(DescribeTableCommand).resolves({ Table: recordTable(types('N', 'B')) });
    await expect(ensureTable(client, 'records')).rejects.toThrow(
      'table records exists but its key attribute pk is of type N, not S; its key attribute gsi1sk is of type B, not S; delete it to have it created as the provisioner needs',
    );
    // As defined, it is taken.
    dynamo.on(DescribeTableCommand).resolves({ Table: recordTable(definition.AttributeDefinitions) });
    expect(await ensureTable(client, 'records')).toEqual({ tableName: 'records', streamArn });
  });

  it('is refused as the shared rate budget: every take would fail on it', async () => {
    const { KeySchema } = rateBudgetTableDefinition('rates');
    dynamo.on(DescribeTableCommand).resolves({
      Table: { TableName: 'rates', TableStatus: 'ACTIVE', KeySchema, AttributeDefinitions: [{ AttributeName: 'bucket', AttributeType: 'N' }] },
    });
    await expect(ensureRateBudgetTable(client, 'rates')).rejects.toThrow(
      'table rates exists but its key attribute bucket is of type N, not S; delete it to have it created as the rate budget needs',
    );
  });
});
