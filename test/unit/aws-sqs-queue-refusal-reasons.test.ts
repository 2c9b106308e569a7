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
});
