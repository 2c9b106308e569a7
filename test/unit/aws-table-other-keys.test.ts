import { CreateTableCommand, DescribeTableCommand, DynamoDBClient, ResourceInUseException, type TableDescription } from '@aws-sdk/client-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { ensureRateBudgetTable, ensureTable, tableDefinition } from '../../lib/aws/table.js';

const client = new DynamoDBClient({ region: 'us-east-1', credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' } });
const dynamo = mockClient(client);

describe('a table that exists with keys other than its definition', () => {
  beforeEach(() => {
    dynamo.reset();
    dynamo.on(CreateTableCommand).rejects(new ResourceInUseException({ message: 'Table already exists', $metadata: {} }));
  });

  it('is refused as the shared rate budget, naming its keys: every take would fail on it', async () => {
    dynamo.on(DescribeTableCommand).resolves({ Table: { TableName: 'rates', TableStatus: 'ACTIVE', KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }] } });
    await expect(ensureRateBudgetTable(client, 'rates')).rejects.toThrow(
      'table rates exists but its keys are id (HASH), not bucket (HASH); delete it to have it created as the rate budget needs',
    );
  });

  it('is refused as the record table, naming its keys, even with the index and the stream it needs', async () => {
    const definition = tableDefinition('records');
    const table: TableDescription = {
      TableName: 'records',
      TableStatus: 'ACTIVE',
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      GlobalSecondaryIndexes: definition.GlobalSecondaryIndexes!.map((index) => ({ ...index, IndexStatus: 'ACTIVE' })),
      StreamSpecification: definition.StreamSpecification,
      LatestStreamArn: 'arn:aws:dynamodb:us-east-1:123456789012:table/records/stream/1',
    };
    dynamo.on(DescribeTableCommand).resolves({ Table: table });
    await expect(ensureTable(client, 'records')).rejects.toThrow(
      'table records exists but its keys are pk (HASH), not pk (HASH), sk (RANGE); delete it to have it created as the provisioner needs',
    );
  });
});
