import { CreateTableCommand, DescribeTableCommand, DynamoDBClient, ResourceInUseException, type TableDescription } from '@aws-sdk/client-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { ensureTable, tableDefinition } from '../../lib/aws/table.js';

const client = new DynamoDBClient({ region: 'us-east-1', credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' } });
const dynamo = mockClient(client);

describe('a record table that exists with a stream not carrying both images', () => {
  beforeEach(() => {
    dynamo.reset();
    dynamo.on(CreateTableCommand).rejects(new ResourceInUseException({ message: 'Table already exists', $metadata: {} }));
  });

  it('is refused, naming its stream: the watcher compares the old image with the new', async () => {
    const definition = tableDefinition('records');
    const table: TableDescription = {
      TableName: 'records',
      TableStatus: 'ACTIVE',
      KeySchema: definition.KeySchema,
      AttributeDefinitions: definition.AttributeDefinitions,
      GlobalSecondaryIndexes: definition.GlobalSecondaryIndexes!.map((index) => ({ ...index, IndexStatus: 'ACTIVE' })),
      StreamSpecification: { StreamEnabled: true, StreamViewType: 'KEYS_ONLY' },
      LatestStreamArn: 'arn:aws:dynamodb:us-east-1:123456789012:table/records/stream/1',
    };
    dynamo.on(DescribeTableCommand).resolves({ Table: table });
    await expect(ensureTable(client, 'records')).rejects.toThrow(
      'table records exists but its stream is KEYS_ONLY, not NEW_AND_OLD_IMAGES; delete it to have it created as the provisioner needs',
    );
  });

  it('is taken when the stream carries both images, returning its ARN', async () => {
    const definition = tableDefinition('records');
    dynamo.on(DescribeTableCommand).resolves({
      Table: {
        TableName: 'records',
        TableStatus: 'ACTIVE',
        KeySchema: definition.KeySchema,
        AttributeDefinitions: definition.AttributeDefinitions,
        GlobalSecondaryIndexes: definition.GlobalSecondaryIndexes!.map((index) => ({ ...index, IndexStatus: 'ACTIVE' })),
        StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
        LatestStreamArn: 'arn:aws:dynamodb:us-east-1:123456789012:table/records/stream/1',
      },
    });
    await expect(ensureTable(client, 'records')).resolves.toEqual({
      tableName: 'records',
      streamArn: 'arn:aws:dynamodb:us-east-1:123456789012:table/records/stream/1',
    });
  });
});
