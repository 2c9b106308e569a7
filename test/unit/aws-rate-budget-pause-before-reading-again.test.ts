import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DynamoRateBudget } from '../../lib/aws/dynamodb-rate-budget.js';

const doc = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
const dynamo = mockClient(doc);
const budget = { burst: 45, ratePerSecond: 5 };
const T = 1_000_000;

describe('DynamoRateBudget after a lost race, without a pause function of its own', () => {
  beforeEach(() => {
    dynamo.reset();
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it('reads the level again only once its pause has passed on the timers (half of 20 ms at a jitter of 0.5)', async () => {
    dynamo.on(GetCommand).resolves({ Item: { bucket: 'AttachVolume', tokens: 20, updatedAt: T, version: 1 } });
    dynamo.on(PutCommand).rejectsOnce(new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} })).resolves({});
    const taking = new DynamoRateBudget({ client: doc, tableName: 'rates', random: () => 0.5 }).take('AttachVolume', 1, budget, T, 0);
    await vi.advanceTimersByTimeAsync(9);
    expect(dynamo.commandCalls(GetCommand)).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(dynamo.commandCalls(GetCommand)).toHaveLength(2);
    expect((await taking).usableAt).toEqual([T]);
  });
});
