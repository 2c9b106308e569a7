import { CreateTableCommand, DescribeTableCommand, DynamoDBClient, ResourceInUseException, type TableDescription } from '@aws-sdk/client-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { ensureTable, tableDefinition } from '../../lib/aws/table.js';

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

describe('ensureTable against a table that exists', () => {
  beforeEach(() => {
    dynamo.reset();
    dynamo.on(CreateTableCommand).rejects(new ResourceInUseException({ message: 'Table already exists: records', $metadata: {} }));
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
});
