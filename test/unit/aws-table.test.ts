import { describe, expect, it } from 'vitest';
import { queueAttributes, rateBudgetTableDefinition, tableDefinition } from '../../lib/aws/table.js';
import { QUEUE, TABLE } from '../../lib/settings.js';

describe('table and queue definitions', () => {
  it('the record table: on demand, pk/sk, the instance index projecting every attribute, a stream of both images', () => {
    expect(tableDefinition('records')).toEqual({
      TableName: 'records',
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
        { AttributeName: 'gsi1pk', AttributeType: 'S' },
        { AttributeName: 'gsi1sk', AttributeType: 'S' },
      ],
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: [
        {
          IndexName: TABLE.instanceIndex.name,
          KeySchema: [
            { AttributeName: 'gsi1pk', KeyType: 'HASH' },
            { AttributeName: 'gsi1sk', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
      ],
      StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
    });
    // The rate budget's table: one string key, no stream (taking tokens wakes no watcher).
    expect(rateBudgetTableDefinition('rates')).toEqual({
      TableName: 'rates',
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [{ AttributeName: 'bucket', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'bucket', KeyType: 'HASH' }],
    });
  });

  it('the operation queue dead-letters after maxReceiveCount receives; the dead-letter queue keeps messages longer than it', () => {
    const day = 24 * 3600;
    expect(queueAttributes('arn:aws:sqs:us-east-1:123456789012:dead')).toEqual({
      VisibilityTimeout: String(QUEUE.visibilityTimeoutSeconds),
      MessageRetentionPeriod: String(QUEUE.retentionDays * day),
      RedrivePolicy: JSON.stringify({ deadLetterTargetArn: 'arn:aws:sqs:us-east-1:123456789012:dead', maxReceiveCount: QUEUE.maxReceiveCount }),
    });
    expect(queueAttributes()).toEqual({ VisibilityTimeout: String(QUEUE.visibilityTimeoutSeconds), MessageRetentionPeriod: String(QUEUE.deadLetterRetentionDays * day) });
    expect(QUEUE.deadLetterRetentionDays).toBeGreaterThan(QUEUE.retentionDays);
  });
});
