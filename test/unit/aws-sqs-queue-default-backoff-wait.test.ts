import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SqsOperationQueue } from '../../lib/aws/sqs-queue.js';

const sqs = mockClient(SQSClient);

/**
 * `SendRetryOptions.sleep` is injected for tests only: without it, the queue waits each retry's
 * backoff on the timer before it sends the failed entries again (first backoff 100 ms by default,
 * with full jitter).
 */
describe('SqsOperationQueue without an injected sleep', () => {
  beforeEach(() => {
    sqs.reset();
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it('sends a failed entry again only once its backoff has passed', async () => {
    // Full jitter: half of the first backoff of 100 ms.
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    sqs
      .on(SendMessageBatchCommand)
      .resolvesOnce({ Successful: [], Failed: [{ Id: '0', SenderFault: false, Code: 'InternalError', Message: 'try again' }] })
      .resolves({ Successful: [{ Id: '0', MessageId: 'm-0', MD5OfMessageBody: 'x' }], Failed: [] });
    const queue = new SqsOperationQueue({ client: new SQSClient({ region: 'us-east-1' }), queueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/operations' });
    let settled = false;
    const sent = queue.send([{ message: { op: 'check-volume', key: { kind: 'volume', volumeId: 'v1' } }, delaySeconds: 0 }]).then(() => {
      settled = true;
    });

    await vi.advanceTimersByTimeAsync(49);
    expect(sqs.commandCalls(SendMessageBatchCommand)).toHaveLength(1);
    expect(settled).toBe(false);

    await vi.advanceTimersByTimeAsync(1);
    await sent;
    expect(sqs.commandCalls(SendMessageBatchCommand)).toHaveLength(2);
    expect(settled).toBe(true);
  });
});
