import { SendMessageBatchCommand, SQSClient, SQSServiceException } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { QueueSendError, SqsOperationQueue } from '../../lib/aws/sqs-queue.js';
import type { QueuedOperation } from '../../lib/engine/ports.js';

const sqs = mockClient(SQSClient);

const operation = (volumeId: string): QueuedOperation => ({ message: { op: 'check-volume', key: { kind: 'volume', volumeId } }, delaySeconds: 0 });
const operations = (count: number) => Array.from({ length: count }, (_, index) => operation(`v${index}`));

const queue = () =>
  new SqsOperationQueue({
    client: new SQSClient({ region: 'us-east-1' }),
    queueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/operations',
    retry: { maxAttempts: 3, sleep: async () => {} },
  });

type Entries = { Entries?: { Id?: string; MessageBody?: string }[] };
const volumeIds = (input: Entries) => (input.Entries ?? []).map((e) => (JSON.parse(e.MessageBody!) as { key: { volumeId: string } }).key.volumeId);
const allSent = (input: Entries) => ({ Successful: (input.Entries ?? []).map((e) => ({ Id: e.Id, MessageId: `m-${e.Id}`, MD5OfMessageBody: '' })), Failed: [] });

describe('SqsOperationQueue, a batch whose request fails outright', () => {
  beforeEach(() => sqs.reset());

  it('still sends the batches after it, and names every message not sent: the refused ones before it and the whole failed batch', async () => {
    const requests: string[][] = [];
    sqs.on(SendMessageBatchCommand).callsFake((input: Entries) => {
      requests.push(volumeIds(input));
      if (requests.length === 2) {
        throw new SQSServiceException({ name: 'InternalError', $fault: 'server', $metadata: {}, message: 'We encountered an internal error.' });
      }
      if (requests.length === 1) {
        return {
          Successful: (input.Entries ?? []).filter((e) => e.Id !== '0').map((e) => ({ Id: e.Id, MessageId: `m-${e.Id}`, MD5OfMessageBody: '' })),
          Failed: [{ Id: '0', SenderFault: true, Code: 'InvalidMessageContents', Message: 'Invalid binary character in message body' }],
        };
      }
      return allSent(input);
    });

    const error = (await queue()
      .send(operations(25))
      .catch((e: unknown) => e)) as QueueSendError;

    expect(requests).toEqual([
      operations(25).slice(0, 10).map((o) => o.message.key.volumeId),
      operations(25).slice(10, 20).map((o) => o.message.key.volumeId),
      operations(25).slice(20).map((o) => o.message.key.volumeId),
    ]);
    expect(error).toBeInstanceOf(QueueSendError);
    expect(error.failures).toEqual([
      { message: operation('v0').message, code: 'InvalidMessageContents', detail: 'Invalid binary character in message body', senderFault: true },
      ...operations(25)
        .slice(10, 20)
        .map((o) => ({ message: o.message, code: 'InternalError', detail: 'We encountered an internal error.', senderFault: false })),
    ]);
    expect(error.message).toMatch(/^11 operation message\(s\) not sent \(14 sent\): /);
    expect(error.message).toContain('"v10"}: InternalError (We encountered an internal error.)');
  });

  it("counts a client fault (the queue gone, access denied) as the sender's, and does not send a failed batch again itself", async () => {
    let calls = 0;
    sqs.on(SendMessageBatchCommand).callsFake(() => {
      calls += 1;
      throw new SQSServiceException({
        name: 'QueueDoesNotExist',
        $fault: 'client',
        $metadata: {},
        message: 'The specified queue does not exist.',
      });
    });

    const error = (await queue()
      .send(operations(3))
      .catch((e: unknown) => e)) as QueueSendError;

    expect(calls).toBe(1);
    expect(error).toBeInstanceOf(QueueSendError);
    expect(error.failures.map((f) => [f.message.key.volumeId, f.code, f.senderFault])).toEqual([
      ['v0', 'QueueDoesNotExist', true],
      ['v1', 'QueueDoesNotExist', true],
      ['v2', 'QueueDoesNotExist', true],
    ]);
    expect(error.message).toMatch(/^3 operation message\(s\) not sent \(0 sent\): check-volume \{"kind":"volume","volumeId":"v0"\}: QueueDoesNotExist \(The specified queue does not exist\.\)/);
  });
});
