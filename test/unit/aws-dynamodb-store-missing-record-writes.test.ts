import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { DynamoRecordStore } from '../../lib/aws/dynamodb-store.js';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { ConditionFailedError } from '../../lib/engine/ports.js';

const doc = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
const dynamo = mockClient(doc);
const store = () => new DynamoRecordStore({ client: doc, tableName: 'records' });
/** DynamoDB's answer to a conditional write on a key where no item is: the condition failed, with no item to return. */
const nothingThere = () => new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} });

async function failure(write: Promise<unknown>): Promise<ConditionFailedError> {
  const error = await write.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ConditionFailedError);
  return error as ConditionFailedError;
}

describe('DynamoRecordStore, a write to a record that is not there', () => {
  beforeEach(() => dynamo.reset());

  it('a remove fails saying the record does not exist, with no current record (as the in-memory table)', async () => {
    dynamo.on(DeleteCommand).rejects(nothingThere());
    const error = await failure(store().remove({ kind: 'attachment', volumeId: 'v1', instanceId: 'i-1' }, { version: 3 }));
    expect(error.message).toBe('attachment/v1/i-1 does not exist');
    expect(error.current).toBeUndefined();
  });

  it('an update fails saying the record does not exist, with no current record (as the in-memory table)', async () => {
    dynamo.on(UpdateCommand).rejects(nothingThere());
    const error = await failure(store().update<VolumeRecord>({ kind: 'volume', volumeId: 'v1' }, { observedGeneration: 2 }, { version: 3 }));
    expect(error.message).toBe('volume/v1 does not exist');
    expect(error.current).toBeUndefined();
  });
});
