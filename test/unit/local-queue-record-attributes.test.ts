/**
 * A local queue record carries SQS's message attributes as Lambda hands them over: the receive
 * count (which tells the executor a delivery is the last one SQS allows) and the times, in epoch
 * milliseconds, as strings.
 */
import { describe, expect, it } from 'vitest';
import { queueRecord } from '../../lib/local/event-records.js';

const sentAt = Date.parse('2026-01-01T00:00:00.000Z');

describe('a local queue record', () => {
  it('says how many times its message has been received', () => {
    for (const receiveCount of [1, 3, 5]) {
      const record = queueRecord({ messageId: 'm-1', receiptHandle: 'r-1', receiveCount, sentAt, body: '{}' });
      expect(record.attributes.ApproximateReceiveCount).toBe(String(receiveCount));
    }
  });

  it('gives when its message was sent in epoch milliseconds, and a first receive no earlier than that', () => {
    const record = queueRecord({ messageId: 'm-1', receiptHandle: 'r-1', receiveCount: 2, sentAt, body: '{}' });
    expect(record.attributes.SentTimestamp).toBe(String(sentAt));
    expect(record.attributes.ApproximateFirstReceiveTimestamp).toMatch(/^\d+$/);
    expect(Number(record.attributes.ApproximateFirstReceiveTimestamp)).toBeGreaterThanOrEqual(sentAt);
  });
});
