import { DynamoDBClient, DynamoDBServiceException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { DynamoRecordStore } from '../../lib/aws/dynamodb-store.js';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { ItemTooLargeError } from '../../lib/engine/ports.js';

const doc = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
const dynamo = mockClient(doc);
const store = () => new DynamoRecordStore({ client: doc, tableName: 'records' });
const validation = (message: string) => new DynamoDBServiceException({ name: 'ValidationException', $fault: 'client', $metadata: {}, message });
const renumbered = { Attributes: { pk: 'VOLUME#v1', sk: 'VOLUME', kind: 'volume', volumeId: 'v1', version: 1 } };

describe('an update DynamoDB refuses for a reason other than a version that is no number', () => {
  beforeEach(() => dynamo.reset());

  it('fails with that refusal after one UpdateItem, without numbering the item afresh', async () => {
    const other = validation('One or more parameter values were invalid: An AttributeValue may not contain an empty string');
    dynamo.on(UpdateCommand).rejectsOnce(other).resolves(renumbered);
    await expect(store().update<VolumeRecord>({ kind: 'volume', volumeId: 'v1' }, { observedGeneration: 1 })).rejects.toBe(other);
    expect(dynamo.commandCalls(UpdateCommand)).toHaveLength(1);
  });

  it('fails as too large after one UpdateItem when the item would pass 400 KB, in an update or a claim', async () => {
    const tooLarge = () => {
      dynamo.reset();
      dynamo.on(UpdateCommand).rejectsOnce(validation('Item size to update has exceeded the maximum allowed size')).resolves(renumbered);
    };
    tooLarge();
    await expect(store().update<VolumeRecord>({ kind: 'volume', volumeId: 'v1' }, { observedGeneration: 1 })).rejects.toBeInstanceOf(ItemTooLargeError);
    expect(dynamo.commandCalls(UpdateCommand)).toHaveLength(1);
    tooLarge();
    await expect(store().claim({ kind: 'volume', volumeId: 'v1' }, 'owner-1', 0, 1000)).rejects.toBeInstanceOf(ItemTooLargeError);
    expect(dynamo.commandCalls(UpdateCommand)).toHaveLength(1);
  });
});
