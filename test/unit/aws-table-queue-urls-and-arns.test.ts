import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { ensureQueues } from '../../lib/aws/table.js';

const client = new SQSClient({ region: 'us-east-1', credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' } });
const sqs = mockClient(client);

describe('ensureQueues', () => {
  afterEach(() => sqs.reset());

  it("returns each queue's own URL and ARN, the operation queue's and the dead-letter queue's", async () => {
    sqs.on(CreateQueueCommand, { QueueName: 'operations-dlq' }).resolves({ QueueUrl: 'https://sqs/operations-dlq' });
    sqs.on(CreateQueueCommand, { QueueName: 'operations' }).resolves({ QueueUrl: 'https://sqs/operations' });
    sqs.on(GetQueueAttributesCommand, { QueueUrl: 'https://sqs/operations-dlq' }).resolves({ Attributes: { QueueArn: 'arn:aws:sqs:us-east-1:123456789012:operations-dlq' } });
    sqs.on(GetQueueAttributesCommand, { QueueUrl: 'https://sqs/operations' }).resolves({ Attributes: { QueueArn: 'arn:aws:sqs:us-east-1:123456789012:operations' } });
    expect(await ensureQueues(client, { queueName: 'operations', deadLetterQueueName: 'operations-dlq' })).toEqual({
      queueUrl: 'https://sqs/operations',
      queueArn: 'arn:aws:sqs:us-east-1:123456789012:operations',
      deadLetterQueueUrl: 'https://sqs/operations-dlq',
      deadLetterQueueArn: 'arn:aws:sqs:us-east-1:123456789012:operations-dlq',
    });
  });
});
