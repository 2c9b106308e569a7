import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { QueueSendError, SqsOperationQueue } from '../../lib/aws/sqs-queue.js';
import type { QueuedOperation } from '../../lib/engine/ports.js';

const sqs = mockClient(SQSClient);

const operation = (volumeId: string): QueuedOperation => ({
  message: { op: 'check-volume', key: { kind: 'volume', volumeId }, reason: 'progress check' },
  delaySeconds: 0,
});

const queue = () =>
  new SqsOperationQueue({
    client: new SQSClient({ region: 'us-east-1' }),
    queueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/operations',
    retry: { maxAttempts: 3, baseDelayMs: 10, sleep: async () => {} },
  });

describe('SqsOperationQueue, an answer that leaves an entry out', () => {
  beforeEach(() => sqs.reset());

  it('sends an entry SQS neither acknowledged nor refused again, and reports it NotAcknowledged, not sent, when it never is', async () => {
    // Entry 0 is acknowledged; entry 1 is in neither list of any answer.
    sqs.on(SendMessageBatchCommand).resolves({ Successful: [{ Id: '0', MessageId: 'm-0', MD5OfMessageBody: 'x' }] });
    const error = (await queue().send([operation('v0'), operation('v1')]).catch((e: unknown) => e)) as QueueSendError;
    expect(error).toBeInstanceOf(QueueSendError);
    expect(error.failures).toEqual([{ message: operation('v1').message, code: 'NotAcknowledged', detail: undefined, senderFault: false }]);
    expect(error.message).toBe('1 operation message(s) not sent (1 sent): check-volume {"kind":"volume","volumeId":"v1"}: NotAcknowledged');
    expect(sqs.commandCalls(SendMessageBatchCommand).map((call) => call.args[0].input.Entries!.map((entry) => entry.Id))).toEqual([['0', '1'], ['1'], ['1']]);
  });

  it('an entry left out once and acknowledged on the next attempt is sent', async () => {
    sqs
      .on(SendMessageBatchCommand)
      .resolvesOnce({ Successful: [] })
      .resolves({ Successful: [{ Id: '0', MessageId: 'm-0', MD5OfMessageBody: 'x' }] });
    await expect(queue().send([operation('v0')])).resolves.toBeUndefined();
    expect(sqs.commandCalls(SendMessageBatchCommand)).toHaveLength(2);
  });
});
