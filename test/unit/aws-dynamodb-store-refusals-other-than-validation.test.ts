import { DynamoDBClient, DynamoDBServiceException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { DynamoRecordStore } from '../../lib/aws/dynamodb-store.js';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { ItemTooLargeError } from '../../lib/engine/ports.js';

const doc = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
const dynamo = mockClient(doc);
const store = () => new DynamoRecordStore({ client: doc, tableName: 'records' });
/** An error DynamoDB answers with a name other than ValidationException, here a server-side one. */
const internal = (message: string) => new DynamoDBServiceException({ name: 'InternalServerError', $fault: 'server', $metadata: {}, message });
const renumbered = { Attributes: { pk: 'VOLUME#v1', sk: 'VOLUME', kind: 'volume', volumeId: 'v1', version: 1 } };

/**
 * Only a ValidationException is DynamoDB refusing a write for the item's size or for a version that
 * is no number; an error of another name is passed on as it is, whatever its message says.
 */
describe('a write failing with an error other than a ValidationException', () => {
  beforeEach(() => dynamo.reset());

  it('is not taken for an item over 400 KB', async () => {
    const putError = internal('Item size has exceeded the maximum allowed size');
    const updateError = internal('Item size to update has exceeded the maximum allowed size');
    dynamo.on(PutCommand).rejects(putError);
    dynamo.on(UpdateCommand).rejects(updateError);
    const created = await store().create({ kind: 'volume', volumeId: 'v1' } as VolumeRecord).catch((e: unknown) => e);
    expect(created).toBe(putError);
    expect(created).not.toBeInstanceOf(ItemTooLargeError);
    await expect(store().update<VolumeRecord>({ kind: 'volume', volumeId: 'v1' }, { observedGeneration: 1 })).rejects.toBe(updateError);
  });

  it('is not taken for a version that is no number: the item is not numbered afresh', async () => {
    const error = internal('Invalid UpdateExpression: An operand in the update expression has an incorrect data type');
    dynamo.on(UpdateCommand).rejectsOnce(error).resolves(renumbered);
    await expect(store().update<VolumeRecord>({ kind: 'volume', volumeId: 'v1' }, { observedGeneration: 1 })).rejects.toBe(error);
    expect(dynamo.commandCalls(UpdateCommand)).toHaveLength(1);
  });
});
