import { CreateQueueCommand, GetQueueAttributesCommand, ReceiveMessageCommand, type Message } from '@aws-sdk/client-sqs';
import { beforeAll, expect, it } from 'vitest';
import type { AwsClients } from '../../lib/aws/clients.js';
import { parseOperationMessage, SqsOperationQueue } from '../../lib/aws/sqs-queue.js';
import { ensureQueues, type QueueInfo } from '../../lib/aws/table.js';
import type { QueuedOperation } from '../../lib/engine/ports.js';
import { QUEUE } from '../../lib/settings.js';
import { describeWithMoto, motoClients } from '../support/moto.js';

describeWithMoto('SqsOperationQueue against moto', (endpoint) => {
  let clients: AwsClients;
  let queues: QueueInfo;
  let queue: SqsOperationQueue;

  beforeAll(async () => {
    clients = motoClients(endpoint());
    queues = await ensureQueues(clients.sqs, { queueName: 'operations', deadLetterQueueName: 'operations-dlq' });
    queue = new SqsOperationQueue({ client: clients.sqs, queueUrl: queues.queueUrl });
  });

  /** Receives until `count` messages arrived or `timeoutMs` passed; VisibilityTimeout 0 keeps them receivable. */
  async function receive(queueUrl: string, count: number, timeoutMs: number, visibilityTimeout?: number): Promise<Message[]> {
    const messages: Message[] = [];
    const deadline = Date.now() + timeoutMs;
    while (messages.length < count && Date.now() < deadline) {
      const { Messages } = await clients.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: 1,
          ...(visibilityTimeout === undefined ? {} : { VisibilityTimeout: visibilityTimeout }),
        }),
      );
      messages.push(...(Messages ?? []));
    }
    return messages;
  }

  it('creates the queues idempotently with the settings and the redrive policy', async () => {
    const again = await ensureQueues(clients.sqs, { queueName: 'operations', deadLetterQueueName: 'operations-dlq' });
    expect(again).toEqual(queues);
    const { Attributes } = await clients.sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: queues.queueUrl, AttributeNames: ['All'] }),
    );
    expect(Attributes?.VisibilityTimeout).toBe(String(QUEUE.visibilityTimeoutSeconds));
    expect(Attributes?.MessageRetentionPeriod).toBe(String(QUEUE.retentionDays * 86_400));
    expect(JSON.parse(Attributes!.RedrivePolicy!)).toEqual({
      deadLetterTargetArn: queues.deadLetterQueueArn,
      maxReceiveCount: QUEUE.maxReceiveCount,
    });
    // A dead letter keeps its first enqueue time: the dead-letter queue keeps messages longer.
    const deadLetters = await clients.sqs.send(new GetQueueAttributesCommand({ QueueUrl: queues.deadLetterQueueUrl, AttributeNames: ['MessageRetentionPeriod'] }));
    expect(deadLetters.Attributes?.MessageRetentionPeriod).toBe(String(QUEUE.deadLetterRetentionDays * 86_400));
  });

  it('refuses a queue that exists with other attributes, saying which differ and what to do', async () => {
    // A queue an earlier version made, with a shorter visibility timeout and no redrive policy.
    await clients.sqs.send(new CreateQueueCommand({ QueueName: 'stale', Attributes: { VisibilityTimeout: '30' } }));
    const dlq = await ensureQueues(clients.sqs, { queueName: 'fresh', deadLetterQueueName: 'fresh-dlq' });
    const refusal = ensureQueues(clients.sqs, { queueName: 'stale', deadLetterQueueName: 'fresh-dlq' });
    await expect(refusal).rejects.toThrow(
      `queue stale exists but its VisibilityTimeout is 30, not ${QUEUE.visibilityTimeoutSeconds}; its MessageRetentionPeriod is 345600, not ${QUEUE.retentionDays * 86_400}; ` +
        `its RedrivePolicy is unset, not {"deadLetterTargetArn":"${dlq.deadLetterQueueArn}","maxReceiveCount":${QUEUE.maxReceiveCount}}; delete it to have it created as the provisioner needs`,
    );
  });

  it('sends more than one batch; bodies parse back into the same operation messages, tokens taken ahead included', async () => {
    const operations: QueuedOperation[] = Array.from({ length: 15 }, (_, i) => ({
      message:
        i % 2 === 0
          ? { op: 'check-volume', key: { kind: 'volume', volumeId: `v${i}` }, dueAt: 1_000 + i, reason: 'progress check' }
          : { op: 'create-volume', key: { kind: 'volume', volumeId: `v${i}` }, dueAt: 1_000 + i, tokenAt: 2_000 + i, reason: 'waiting for the CreateVolume rate budget' },
      delaySeconds: 0,
    }));
    await queue.send(operations);
    const received = await receive(queues.queueUrl, 15, 10_000);
    const parsed = received.map((m) => parseOperationMessage(m.Body!));
    expect(parsed.every((p) => p.ok)).toBe(true);
    expect(parsed.map((p) => (p.ok ? p.message : undefined)).sort((a, b) => a!.dueAt! - b!.dueAt!)).toEqual(
      operations.map((o) => o.message),
    );
  });

  it('holds a delayed message back for its delay', async () => {
    // moto_server holds a delayed message back by its own wall clock, which a fake clock in this
    // process cannot move: the test waits the real 2 s. Its only time bound is the lower one the
    // delay implies, which a slow machine can only make easier to meet.
    const sendStarted = Date.now();
    await queue.send([
      { message: { op: 'check-volume', key: { kind: 'volume', volumeId: 'late' } }, delaySeconds: 2 },
      { message: { op: 'check-volume', key: { kind: 'volume', volumeId: 'now' } }, delaySeconds: 0 },
    ]);
    /** Each message received, with when the receive that returned it answered. */
    const arrivals: { volumeId: string; answeredAt: number }[] = [];
    const deadline = Date.now() + 20_000;
    while (arrivals.length < 2 && Date.now() < deadline) {
      const { Messages } = await clients.sqs.send(new ReceiveMessageCommand({ QueueUrl: queues.queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }));
      const answeredAt = Date.now();
      for (const m of Messages ?? []) arrivals.push({ volumeId: (JSON.parse(m.Body!) as { key: { volumeId: string } }).key.volumeId, answeredAt });
    }
    expect(arrivals.map((a) => a.volumeId).sort()).toEqual(['late', 'now']);
    const [now, late] = ['now', 'late'].map((id) => arrivals.find((a) => a.volumeId === id)!);
    // The undelayed message is not held back behind the delayed one; the delayed one came no sooner than its delay.
    expect(now!.answeredAt).toBeLessThanOrEqual(late!.answeredAt);
    expect(late!.answeredAt - sendStarted).toBeGreaterThanOrEqual(2_000);
  });

  it('moves a message received maxReceiveCount times to the dead-letter queue', async () => {
    const isolated = await ensureQueues(clients.sqs, { queueName: 'poison', deadLetterQueueName: 'poison-dlq' });
    await new SqsOperationQueue({ client: clients.sqs, queueUrl: isolated.queueUrl }).send([
      { message: { op: 'delete-volume', key: { kind: 'volume', volumeId: 'poison' } }, delaySeconds: 0 },
    ]);
    for (let i = 0; i < QUEUE.maxReceiveCount; i++) {
      expect(await receive(isolated.queueUrl, 1, 3_000, 0)).toHaveLength(1);
    }
    expect(await receive(isolated.queueUrl, 1, 1_500, 0)).toHaveLength(0);
    const dead = await receive(isolated.deadLetterQueueUrl, 1, 3_000);
    expect(dead.map((m) => JSON.parse(m.Body!).key.volumeId)).toEqual(['poison']);
  });
});
