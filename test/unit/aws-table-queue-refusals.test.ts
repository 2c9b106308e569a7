import { CreateQueueCommand, GetQueueAttributesCommand, GetQueueUrlCommand, QueueNameExists, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { ensureQueues, queueAttributes } from '../../lib/aws/table.js';

const client = new SQSClient({ region: 'us-east-1', credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' } });
const sqs = mockClient(client);
const names = { queueName: 'operations', deadLetterQueueName: 'operations-dlq' };

describe('ensureQueues when SQS refuses to create a queue', () => {
  afterEach(() => sqs.reset());

  it('passes on a refusal other than "already exists" as it is, reading nothing and creating no further queue', async () => {
    const denied = Object.assign(new Error('User is not authorized to perform: sqs:createqueue'), { name: 'AccessDenied' });
    sqs.on(CreateQueueCommand).rejects(denied);
    await expect(ensureQueues(client, names)).rejects.toBe(denied);
    expect(sqs.commandCalls(CreateQueueCommand)).toHaveLength(1);
    expect(sqs.commandCalls(GetQueueUrlCommand)).toHaveLength(0);
    expect(sqs.commandCalls(GetQueueAttributesCommand)).toHaveLength(0);
  });

  it('refuses a queue that exists with the attributes it is given but others besides (SQS compares them all), saying so', async () => {
    const exists = new QueueNameExists({ message: 'The specified queue already exists', $metadata: {} });
    sqs.on(CreateQueueCommand).rejects(exists);
    sqs.on(GetQueueUrlCommand).resolves({ QueueUrl: 'https://sqs/operations-dlq' });
    // Every attribute asked for is as wanted (the queue differs in one not asked for, such as DelaySeconds).
    sqs.on(GetQueueAttributesCommand).resolves({ Attributes: queueAttributes() as Record<string, string> });
    const refusal = (await ensureQueues(client, names).catch((e: unknown) => e)) as Error;
    expect(refusal).toBeInstanceOf(Error);
    expect(refusal.message).toBe('queue operations-dlq exists but with other attributes; delete it to have it created as the provisioner needs');
    expect(refusal.cause).toBe(exists);
    expect(sqs.commandCalls(GetQueueAttributesCommand)[0]!.args[0].input.AttributeNames!.sort()).toEqual(Object.keys(queueAttributes()).sort());
  });
});
