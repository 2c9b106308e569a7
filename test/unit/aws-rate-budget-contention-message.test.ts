import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { DynamoRateBudget, RateBudgetContentionError } from '../../lib/aws/dynamodb-rate-budget.js';

const doc = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
const dynamo = mockClient(doc);
const T = 1_000_000;

describe('DynamoRateBudget giving up to contention', () => {
  beforeEach(() => dynamo.reset());

  // The executor logs only the error's message when the shared budget fails it: the message is what tells why.
  it('says which bucket kept changing and under how many attempts, by its own name', async () => {
    dynamo.on(GetCommand).resolves({ Item: { bucket: 'DeleteVolume', tokens: 20, updatedAt: T, version: 1 } });
    dynamo.on(PutCommand).rejects(new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} }));
    const error = await new DynamoRateBudget({ client: doc, tableName: 'rates', maxAttempts: 3, sleep: async () => {} })
      .take('DeleteVolume', 1, { burst: 45, ratePerSecond: 5 }, T, 0)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateBudgetContentionError);
    expect(error).toMatchObject({ name: 'RateBudgetContentionError', message: expect.stringMatching(/DeleteVolume.* 3 attempts/) });
    expect(dynamo.commandCalls(PutCommand)).toHaveLength(3);
  });
});
