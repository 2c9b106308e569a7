/** The Lambda event records the local backends build: the images each kind of change carries, SQS bodies, and the fields Lambda fills in as the deployed handlers receive them. */
import { describe, expect, it } from 'vitest';
import type { OperationMessage } from '../../lib/engine/ports.js';
import { toRecordChange } from '../../lib/functions/handlers.js';
import { queueRecord, streamRecord } from '../../lib/local/event-records.js';
import { volume as storedVolume } from './memory-store-fixtures.js';

const T0 = '2026-01-01T00:00:00.000Z';
const key = { kind: 'volume' as const, volumeId: 'data-1' };
const volume = storedVolume('data-1', T0, { version: 1 });

describe('local stream records', () => {
  it('carry no old image for an insert and no new image for a remove, as DynamoDB Streams sends them', () => {
    const inserted = streamRecord({ eventName: 'INSERT', key, newRecord: volume, sequenceNumber: 1, at: Date.parse(T0) });
    expect(inserted.dynamodb).not.toHaveProperty('OldImage');
    expect(toRecordChange(inserted)).toEqual({ id: '000000000000000000001', eventName: 'INSERT', key, newRecord: volume });

    const removed = streamRecord({ eventName: 'REMOVE', key, oldRecord: volume, sequenceNumber: 2, at: Date.parse(T0) });
    expect(removed.dynamodb).not.toHaveProperty('NewImage');
    expect(toRecordChange(removed)).toEqual({ id: '000000000000000000002', eventName: 'REMOVE', key, oldRecord: volume });
  });
});

describe('local queue records', () => {
  const message = { messageId: 'm-1', receiptHandle: 'r-1', receiveCount: 1, sentAt: Date.parse(T0) };
  const operation = { kind: 'check', key, generation: 1 } as unknown as OperationMessage;

  it('carry a message taken from SQS as the text it came as, and one from the memory queue as its JSON: the same body either way', () => {
    const text = JSON.stringify(operation);
    expect(queueRecord({ ...message, body: text }).body).toBe(text);
    expect(queueRecord({ ...message, body: operation }).body).toBe(text);
    // A body that is not JSON reaches the executor as it is, for it to report.
    expect(queueRecord({ ...message, body: 'not json' }).body).toBe('not json');
  });
});

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
