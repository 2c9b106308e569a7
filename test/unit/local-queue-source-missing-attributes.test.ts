import { ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { expect, it } from 'vitest';
import { sqsQueueSource } from '../../lib/local/moto-backend.js';

const sqs = new SQSClient({ region: 'us-east-1', credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' } });
const mock = mockClient(sqs);

it('hands a message whose endpoint gave no receive count over as received once, the delivery it is', async () => {
  mock.on(ReceiveMessageCommand).resolves({ Messages: [{ MessageId: 'm-1', ReceiptHandle: 'r-1', Body: '{}' }] });
  const [record] = await sqsQueueSource({ sqs }, 'http://127.0.0.1:5000/000000000000/operations').receive(1);
  expect(record!.attributes.ApproximateReceiveCount).toBe('1');
});
