import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DynamoRecordStore } from '../../lib/aws/dynamodb-store.js';

const doc = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
const dynamo = mockClient(doc);

describe('DynamoRecordStore, unprocessed keys under the default backoff', () => {
  beforeEach(() => dynamo.reset());
  afterEach(() => vi.restoreAllMocks());

  it('waits up to 50 ms before the first retry and twice as long before the next, with full jitter', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    const key = { pk: 'VOLUME#v1', sk: 'VOLUME' };
    dynamo
      .on(BatchGetCommand)
      .resolvesOnce({ Responses: { records: [] }, UnprocessedKeys: { records: { Keys: [key] } } })
      .resolvesOnce({ Responses: { records: [] }, UnprocessedKeys: { records: { Keys: [key] } } })
      .resolves({ Responses: { records: [{ ...key, kind: 'volume', volumeId: 'v1' }] } });
    const sleeps: number[] = [];
    const store = new DynamoRecordStore({ client: doc, tableName: 'records', unprocessedRetry: { sleep: async (ms) => void sleeps.push(ms) } });
    expect((await store.getMany([{ kind: 'volume', volumeId: 'v1' }])).map((record) => record.volumeId)).toEqual(['v1']);
    expect(sleeps).toEqual([25, 50]);
  });
});
