/**
 * A local queue record names its message as Lambda's SQS event does: `messageId` is the message's
 * own id (the one a partial batch response reports back as `itemIdentifier`), and `receiptHandle`
 * the handle of this receive.
 */
import { describe, expect, it } from 'vitest';
import { queueRecord } from '../../lib/local/event-records.js';

describe('a local queue record', () => {
  it("carries its message's id and its receipt handle, each in its own field", () => {
    const record = queueRecord({ messageId: 'm-7', receiptHandle: 'r-7', receiveCount: 1, sentAt: 0, body: '{}' });
    expect(record.messageId).toBe('m-7');
    expect(record.receiptHandle).toBe('r-7');
  });
});
