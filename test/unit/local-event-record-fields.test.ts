/** The fields Lambda fills in on the event records the local backends build, as the deployed handlers receive them. */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { queueRecord, streamRecord } from '../../lib/local/event-records.js';

const T0 = '2026-01-01T00:00:00.000Z';
const key = { kind: 'volume' as const, volumeId: 'data-1' };
const volume: VolumeRecord = {
  kind: 'volume',
  volumeId: 'data-1',
  spec: { sizeGiB: 20, volumeType: 'gp3', availabilityZone: 'us-east-1a' },
  life: 'alive',
  generation: 1,
  status: { state: 'pending', attempts: 0, updatedAt: T0 },
  version: 1,
  createdAt: T0,
};

describe('local event records', () => {
  it('give a stream record the DynamoDB source, the table\'s view type, and its creation time in epoch seconds rounded down', () => {
    const at = Date.parse(T0) + 1_999;
    const record = streamRecord({ eventName: 'INSERT', key, newRecord: volume, sequenceNumber: 1, at });
    expect(record).toMatchObject({ eventSource: 'aws:dynamodb', eventVersion: '1.1', awsRegion: 'us-east-1' });
    expect(record.dynamodb).toMatchObject({ StreamViewType: 'NEW_AND_OLD_IMAGES', ApproximateCreationDateTime: Date.parse(T0) / 1000 + 1 });
  });

  it('give a queue record the SQS source', () => {
    const record = queueRecord({ messageId: 'm-1', receiptHandle: 'r-1', receiveCount: 2, sentAt: Date.parse(T0), body: '{}' });
    expect(record).toMatchObject({ eventSource: 'aws:sqs', awsRegion: 'us-east-1' });
    expect(record.eventSourceARN).toMatch(/^arn:aws:sqs:us-east-1:\d{12}:/);
  });
});
