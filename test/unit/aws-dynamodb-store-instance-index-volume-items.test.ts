import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { DynamoRecordStore } from '../../lib/aws/dynamodb-store.js';

const doc = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
const dynamo = mockClient(doc);
const store = () => new DynamoRecordStore({ client: doc, tableName: 'records' });

describe("an instance's attachments read through the instance index", () => {
  beforeEach(() => dynamo.reset());

  it('leave out a volume item written by hand with the index keys and the fields of an attachment of that instance: its own keys name a volume', async () => {
    dynamo.on(QueryCommand).resolves({
      Items: [
        { pk: 'VOLUME#v1', sk: 'ATTACHMENT#i-1', gsi1pk: 'INSTANCE#i-1', gsi1sk: 'VOLUME#v1' },
        { pk: 'VOLUME#v2', sk: 'VOLUME', gsi1pk: 'INSTANCE#i-1', gsi1sk: 'VOLUME#v2', kind: 'attachment', volumeId: 'v2', instanceId: 'i-1' },
      ],
    });
    expect(await store().attachmentsOfInstance('i-1')).toEqual([{ kind: 'attachment', volumeId: 'v1', instanceId: 'i-1' }]);
  });
});
