import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DynamoRateBudget } from '../../lib/aws/dynamodb-rate-budget.js';

const doc = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
const dynamo = mockClient(doc);
const budget = { burst: 45, ratePerSecond: 5 };
const T = 1_000_000;

describe('DynamoRateBudget, what a take answers', () => {
  beforeEach(() => dynamo.reset());
  afterEach(() => vi.restoreAllMocks());

  it('tokens short of the count: those granted now, and when the first one not granted is usable (one every 200 ms at 5 a second)', async () => {
    dynamo.on(GetCommand).resolves({ Item: { bucket: 'AttachVolume', tokens: 2, updatedAt: T, version: 3 } });
    dynamo.on(PutCommand).resolves({});
    const taken = await new DynamoRateBudget({ client: doc, tableName: 'rates' }).take('AttachVolume', 5, budget, T, 0);
    expect(taken).toEqual({ usableAt: [T, T], nextAt: T + 200 });
  });

  it('without a jitter source of its own, pauses a random part of the backoff', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.25);
    dynamo.on(GetCommand).resolves({ Item: { bucket: 'AttachVolume', tokens: 20, updatedAt: T, version: 1 } });
    dynamo.on(PutCommand).rejectsOnce(new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} })).resolves({});
    const sleeps: number[] = [];
    await new DynamoRateBudget({ client: doc, tableName: 'rates', sleep: async (ms) => void sleeps.push(ms) }).take('AttachVolume', 1, budget, T, 0);
    expect(sleeps).toEqual([5]);
  });
});
