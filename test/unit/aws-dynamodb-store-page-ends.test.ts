import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { DynamoRecordStore } from '../../lib/aws/dynamodb-store.js';

const doc = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
const dynamo = mockClient(doc);
const store = () => new DynamoRecordStore({ client: doc, tableName: 'records' });
const volume = (id: string) => ({ pk: `VOLUME#${id}`, sk: 'VOLUME', kind: 'volume', volumeId: id });

describe('DynamoRecordStore, a kind-filtered Scan that returns more than the page holds', () => {
  beforeEach(() => dynamo.reset());

  it('ends the page at its last item and resumes right after it, so the items read past the page are listed by the next one', async () => {
    // DynamoDB applies Limit before the filter: one Scan of at least 100 items may find more than the page wants.
    dynamo
      .on(ScanCommand)
      .resolvesOnce({ Items: [volume('v1'), volume('v2'), volume('v3')] })
      .resolves({ Items: [volume('v3')] });
    const first = await store().list({ limit: 2, kind: 'volume' });
    expect(first.items.map((record) => (record as { volumeId: string }).volumeId)).toEqual(['v1', 'v2']);
    // The table had no more after v3 (no LastEvaluatedKey), yet v3 is still to come: the page has a cursor.
    expect(first.cursor).toBeDefined();
    const second = await store().list({ limit: 2, kind: 'volume', cursor: first.cursor! });
    expect(second).toEqual({ items: [{ kind: 'volume', volumeId: 'v3' }] });
    expect(dynamo.commandCalls(ScanCommand).map((call) => call.args[0].input.ExclusiveStartKey)).toEqual([undefined, { pk: 'VOLUME#v2', sk: 'VOLUME' }]);
  });
});
