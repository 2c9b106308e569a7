import { CreateQueueCommand, GetQueueAttributesCommand, GetQueueUrlCommand, QueueNameExists, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { ensureQueues, queueAttributes } from '../../lib/aws/table.js';
import { QUEUE } from '../../lib/settings.js';

const client = new SQSClient({ region: 'us-east-1', credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' } });
const sqs = mockClient(client);
const deadLetterArn = 'arn:aws:sqs:us-east-1:123456789012:operations-dlq';
const otherArn = 'arn:aws:sqs:us-east-1:123456789012:other-dlq';

describe('ensureQueues against an operation queue that exists', () => {
  afterEach(() => sqs.reset());

  it('refuses one whose redrive policy sends to another dead-letter queue, after as many receives: its messages would not reach the one created', async () => {
    sqs.on(CreateQueueCommand, { QueueName: 'operations-dlq' }).resolves({ QueueUrl: 'https://sqs/operations-dlq' });
    sqs.on(CreateQueueCommand, { QueueName: 'operations' }).rejects(new QueueNameExists({ message: 'The specified queue already exists', $metadata: {} }));
    sqs.on(GetQueueUrlCommand).resolves({ QueueUrl: 'https://sqs/operations' });
    sqs.on(GetQueueAttributesCommand, { QueueUrl: 'https://sqs/operations-dlq' }).resolves({ Attributes: { QueueArn: deadLetterArn } });
    const redrive = JSON.stringify({ deadLetterTargetArn: otherArn, maxReceiveCount: QUEUE.maxReceiveCount });
    sqs.on(GetQueueAttributesCommand, { QueueUrl: 'https://sqs/operations' }).resolves({
      Attributes: { ...(queueAttributes(deadLetterArn) as Record<string, string>), RedrivePolicy: redrive },
    });
    const refusal = (await ensureQueues(client, { queueName: 'operations', deadLetterQueueName: 'operations-dlq' }).catch((e: unknown) => e)) as Error;
    expect(refusal).toBeInstanceOf(Error);
    expect(refusal.message).toBe(
      `queue operations exists but its RedrivePolicy is ${redrive}, not ${queueAttributes(deadLetterArn).RedrivePolicy}; delete it to have it created as the provisioner needs`,
    );
  });
});
