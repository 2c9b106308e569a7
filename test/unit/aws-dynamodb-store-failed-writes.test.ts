import { ConditionalCheckFailedException, DynamoDBClient, ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { DynamoRecordStore } from '../../lib/aws/dynamodb-store.js';
import { ConditionFailedError } from '../../lib/engine/ports.js';

const doc = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
const dynamo = mockClient(doc);
const store = () => new DynamoRecordStore({ client: doc, tableName: 'records' });
const key = { kind: 'volume' as const, volumeId: 'v1' };
const throttled = () =>
  new ProvisionedThroughputExceededException({ message: 'The level of configured provisioned throughput for the table was exceeded.', $metadata: {} });

describe('DynamoRecordStore writes DynamoDB fails for a reason other than their condition', () => {
  beforeEach(() => dynamo.reset());

  it('a remove passes the failure on as it is: the record may still be there, so it is no failed condition', async () => {
    const error = throttled();
    dynamo.on(DeleteCommand).rejects(error);
    const thrown = await store().remove(key, { version: 3 }).catch((e: unknown) => e);
    expect(thrown).toBe(error);
    expect(thrown).not.toBeInstanceOf(ConditionFailedError);
  });

  it('a release passes the failure on, where a claim held by another owner (or none) is let go of quietly', async () => {
    const error = throttled();
    dynamo.on(UpdateCommand).rejectsOnce(error).rejectsOnce(new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} }));
    await expect(store().release(key, 'exec-a')).rejects.toBe(error);
    await expect(store().release(key, 'exec-a')).resolves.toBeUndefined();
    expect(dynamo.commandCalls(UpdateCommand)).toHaveLength(2);
  });
});
