import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { QueueSendError, SqsOperationQueue } from '../../lib/aws/sqs-queue.js';
import type { QueuedOperation } from '../../lib/engine/ports.js';

const sqs = mockClient(SQSClient);

const operation = (volumeId: string): QueuedOperation => ({ message: { op: 'check-volume', key: { kind: 'volume', volumeId } }, delaySeconds: 0 });

describe('SqsOperationQueue, entries SQS refuses or keeps failing', () => {
  beforeEach(() => sqs.reset());

  it("keeps SQS's reason for each entry it did not send, refused or failed to the last attempt", async () => {
    sqs.on(SendMessageBatchCommand).callsFake((input: { Entries?: { Id?: string }[] }) => ({
      Successful: [],
      Failed: (input.Entries ?? []).map((e) =>
        e.Id === '0'
          ? { Id: e.Id, SenderFault: true, Code: 'InvalidMessageContents', Message: 'Invalid binary character in message body' }
          : { Id: e.Id, SenderFault: false, Code: 'InternalError', Message: 'still failing' },
      ),
    }));
    const queue = new SqsOperationQueue({ client: new SQSClient({ region: 'us-east-1' }), queueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/operations', retry: { maxAttempts: 2, sleep: async () => {} } });
    const error = (await queue.send([operation('v0'), operation('v1')]).catch((e: unknown) => e)) as QueueSendError;
    expect(error).toBeInstanceOf(QueueSendError);
    expect(error.failures).toEqual([
      { message: operation('v0').message, code: 'InvalidMessageContents', detail: 'Invalid binary character in message body', senderFault: true },
      { message: operation('v1').message, code: 'InternalError', detail: 'still failing', senderFault: false },
    ]);
    expect(error.message).toContain('InvalidMessageContents (Invalid binary character in message body)');
    expect(error.message).toContain('InternalError (still failing)');
  });

  it('names at most the first 5 failures in its message and counts the rest; failures holds them all', async () => {
    sqs.on(SendMessageBatchCommand).callsFake((input: { Entries?: { Id?: string }[] }) => ({
      Successful: (input.Entries ?? []).filter((e) => Number(e.Id) >= 7).map((e) => ({ Id: e.Id, MessageId: `m-${e.Id}`, MD5OfMessageBody: '' })),
      Failed: (input.Entries ?? [])
        .filter((e) => Number(e.Id) < 7)
        .map((e) => ({ Id: e.Id, SenderFault: true, Code: 'InvalidMessageContents', Message: `refused ${e.Id}` })),
    }));
    const queue = new SqsOperationQueue({ client: new SQSClient({ region: 'us-east-1' }), queueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/operations', retry: { maxAttempts: 1, sleep: async () => {} } });
    const operations = Array.from({ length: 9 }, (_, index) => operation(`v${index}`));
    const error = (await queue.send(operations).catch((e: unknown) => e)) as QueueSendError;
    expect(error).toBeInstanceOf(QueueSendError);
    expect(error.failures.map((f) => f.detail)).toEqual(['refused 0', 'refused 1', 'refused 2', 'refused 3', 'refused 4', 'refused 5', 'refused 6']);
    expect(error.message).toBe(
      '7 operation message(s) not sent (2 sent): ' +
        [0, 1, 2, 3, 4].map((index) => `check-volume {"kind":"volume","volumeId":"v${index}"}: InvalidMessageContents (refused ${index})`).join('; ') +
        '; and 2 more',
    );
  });

  it('names all of 5 failures, with no count of more', () => {
    const failures = Array.from({ length: 5 }, (_, index) => ({ message: operation(`v${index}`).message, code: 'InternalError', senderFault: false }));
    const error = new QueueSendError(failures, 0);
    expect(error.message.split('; ')).toHaveLength(5);
    expect(error.message).not.toContain('more');
    expect(error.message).toContain('v4"}: InternalError');
  });
});
