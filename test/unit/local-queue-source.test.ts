import { DeleteMessageBatchCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { sqsQueueSource } from '../../lib/local/moto-backend.js';

const sqs = new SQSClient({ region: 'us-east-1', credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' } });
const mock = mockClient(sqs);
const QUEUE_URL = 'http://127.0.0.1:5000/000000000000/operations';

describe("the moto backend's queue source", () => {
  beforeEach(() => mock.reset());

  it('receives at most 10 and at least 1 a request, handing each message over as Lambda does: its receive count, when it was sent and its body', async () => {
    mock.on(ReceiveMessageCommand).resolves({
      Messages: [{ MessageId: 'm-1', ReceiptHandle: 'r-1', Body: '{"op":"check-volume"}', Attributes: { ApproximateReceiveCount: '3', SentTimestamp: '1767225600000' } }],
    });
    const source = sqsQueueSource({ sqs }, QUEUE_URL);
    const [record] = await source.receive(100);
    expect(record).toMatchObject({
      messageId: 'm-1',
      receiptHandle: 'r-1',
      body: '{"op":"check-volume"}',
      attributes: { ApproximateReceiveCount: '3', SentTimestamp: '1767225600000' },
      eventSource: 'aws:sqs',
    });
    await source.receive(0);
    expect(mock.commandCalls(ReceiveMessageCommand).map((call) => call.args[0].input)).toEqual([
      { QueueUrl: QUEUE_URL, MaxNumberOfMessages: 10, MessageSystemAttributeNames: ['All'] },
      { QueueUrl: QUEUE_URL, MaxNumberOfMessages: 1, MessageSystemAttributeNames: ['All'] },
    ]);
    mock.on(ReceiveMessageCommand).resolves({});
    expect(await source.receive(10)).toEqual([]);
  });

  it('deletes a batch of any size in requests of at most 10 entries (SQS refuses more), each by its receipt handle', async () => {
    mock.on(DeleteMessageBatchCommand).resolves({ Successful: [], Failed: [] });
    const records = Array.from({ length: 23 }, (_, i) => ({ messageId: `m-${i}`, receiptHandle: `r-${i}` }) as SQSRecord);
    await sqsQueueSource({ sqs }, QUEUE_URL).delete(records);
    const requests = mock.commandCalls(DeleteMessageBatchCommand).map((call) => call.args[0].input);
    expect(requests.map((input) => input.Entries!.length)).toEqual([10, 10, 3]);
    expect(requests.every((input) => input.QueueUrl === QUEUE_URL)).toBe(true);
    expect(requests.flatMap((input) => input.Entries!.map((entry) => entry.ReceiptHandle))).toEqual(records.map((r) => r.receiptHandle));
    // Ids unique within each request, as SQS requires.
    for (const input of requests) expect(new Set(input.Entries!.map((entry) => entry.Id)).size).toBe(input.Entries!.length);
  });
});
