import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { DynamoRateBudget, RateBudgetContentionError } from '../../lib/aws/dynamodb-rate-budget.js';

const doc = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
const dynamo = mockClient(doc);
const budget = { burst: 45, ratePerSecond: 5 };
const T = 1_000_000;
const conflict = () => new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} });

describe('DynamoRateBudget requests', () => {
  beforeEach(() => dynamo.reset());

  it('creates a missing level only if nobody else has, reading consistently first', async () => {
    dynamo.on(GetCommand).resolves({});
    dynamo.on(PutCommand).resolves({});
    const grant = await new DynamoRateBudget({ client: doc, tableName: 'rates' }).take('AttachVolume', 10, budget, T, 0);
    expect(grant.usableAt).toHaveLength(10);
    expect(dynamo.commandCalls(GetCommand)[0]!.args[0].input).toEqual({ TableName: 'rates', Key: { bucket: 'AttachVolume' }, ConsistentRead: true });
    expect(dynamo.commandCalls(PutCommand)[0]!.args[0].input).toEqual({
      TableName: 'rates',
      Item: { bucket: 'AttachVolume', tokens: 35, updatedAt: T, version: 1 },
      ConditionExpression: 'attribute_not_exists(#bucket)',
      ExpressionAttributeNames: { '#bucket': 'bucket' },
    });
  });

  it('stores the next level on the version it read; losing the race reads again, consistently, and grants from the newer level', async () => {
    dynamo
      .on(GetCommand)
      .resolvesOnce({ Item: { bucket: 'CreateVolume', tokens: 20, updatedAt: T, version: 7 } })
      .resolves({ Item: { bucket: 'CreateVolume', tokens: 2, updatedAt: T, version: 8 } });
    dynamo.on(PutCommand).rejectsOnce(conflict()).resolves({});
    const grant = await new DynamoRateBudget({ client: doc, tableName: 'rates', sleep: async () => {} }).take('CreateVolume', 5, budget, T, 0);
    expect(grant.usableAt).toHaveLength(2);
    const puts = dynamo.commandCalls(PutCommand).map((call) => call.args[0].input);
    expect(puts[0]).toMatchObject({ Item: { tokens: 15, version: 8 }, ConditionExpression: '#version = :version', ExpressionAttributeValues: { ':version': 7 } });
    expect(puts[1]).toMatchObject({ Item: { tokens: 0, version: 9 }, ExpressionAttributeValues: { ':version': 8 } });
    // An eventually consistent read again could return the level the race was lost to, and lose every attempt to it.
    const read = { TableName: 'rates', Key: { bucket: 'CreateVolume' }, ConsistentRead: true };
    expect(dynamo.commandCalls(GetCommand).map((call) => call.args[0].input)).toEqual([read, read]);
  });

  it('reads the line with one eventually consistent GetItem and writes nothing', async () => {
    dynamo.on(GetCommand).resolves({ Item: { bucket: 'AttachVolume', tokens: -10, updatedAt: T, version: 3 } });
    expect(await new DynamoRateBudget({ client: doc, tableName: 'rates' }).waitMs('AttachVolume', budget, T)).toBe(2200);
    expect(dynamo.commandCalls(GetCommand).map((call) => call.args[0].input)).toEqual([{ TableName: 'rates', Key: { bucket: 'AttachVolume' } }]);
    expect(dynamo.commandCalls(PutCommand)).toHaveLength(0);
  });

  it('gives up after its attempts when the level keeps changing, and passes other errors on', async () => {
    dynamo.on(GetCommand).resolves({ Item: { bucket: 'DeleteVolume', tokens: 20, updatedAt: T, version: 1 } });
    dynamo.on(PutCommand).rejects(conflict());
    const sleeps: number[] = [];
    const patient = new DynamoRateBudget({ client: doc, tableName: 'rates', maxAttempts: 4, baseDelayMs: 10, random: () => 0.5, sleep: async (ms) => void sleeps.push(ms) });
    await expect(patient.take('DeleteVolume', 1, budget, T, 0)).rejects.toBeInstanceOf(RateBudgetContentionError);
    expect(dynamo.commandCalls(PutCommand)).toHaveLength(4);
    // Jittered, doubling pauses between attempts, none before the first.
    expect(sleeps).toEqual([5, 10, 20]);

    dynamo.reset();
    dynamo.on(GetCommand).rejects(new Error('ProvisionedThroughputExceededException'));
    await expect(new DynamoRateBudget({ client: doc, tableName: 'rates' }).take('DeleteVolume', 1, budget, T, 0)).rejects.toThrow('ProvisionedThroughputExceededException');
  });

  it('by default makes 5 attempts, pausing up to 20 ms before the second and twice as long before each later one; a failed write other than a lost race is passed on at once', async () => {
    dynamo.on(GetCommand).resolves({ Item: { bucket: 'DeleteVolume', tokens: 20, updatedAt: T, version: 1 } });
    dynamo.on(PutCommand).rejects(conflict());
    const sleeps: number[] = [];
    const standard = new DynamoRateBudget({ client: doc, tableName: 'rates', random: () => 0.5, sleep: async (ms) => void sleeps.push(ms) });
    await expect(standard.take('DeleteVolume', 1, budget, T, 0)).rejects.toBeInstanceOf(RateBudgetContentionError);
    expect(dynamo.commandCalls(PutCommand)).toHaveLength(5);
    expect(sleeps).toEqual([10, 20, 40, 80]);

    dynamo.reset();
    dynamo.on(GetCommand).resolves({ Item: { bucket: 'DeleteVolume', tokens: 20, updatedAt: T, version: 1 } });
    dynamo.on(PutCommand).rejects(new Error('ProvisionedThroughputExceededException'));
    await expect(standard.take('DeleteVolume', 1, budget, T, 0)).rejects.toThrow('ProvisionedThroughputExceededException');
    expect(dynamo.commandCalls(PutCommand)).toHaveLength(1);
  });
});
