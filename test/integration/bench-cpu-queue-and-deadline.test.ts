/**
 * `npm run bench:cpu` hands the executor's messages as Lambda's event source mapping does: what
 * the handler did not report failed is deleted, so nothing is left in flight once every lifecycle
 * ended; and it gives up on lifecycles still open after its time, reporting them not converged.
 */
import { GetQueueAttributesCommand, ListQueuesCommand } from '@aws-sdk/client-sqs';
import { expect, it } from 'vitest';
import { formatCpuReport, measureFunctionCpu } from '../../bench/cpu.js';
import { describeWithMoto, motoClients } from '../support/moto.js';

describeWithMoto('function CPU benchmark: its queue and its deadline', (endpoint) => {
  it('deletes every message the executor handled, leaving none in flight when the lifecycles have ended', async () => {
    // Kept, so that its queues can be read afterwards.
    const report = await measureFunctionCpu({ lifecycles: 2, endpoint: endpoint(), requestsPerClient: 1, timeoutMs: 60_000, keep: true });
    expect(report.converged).toBe(2);
    expect(report.executor.records).toBeGreaterThan(0);
    const { sqs } = motoClients(endpoint());
    // The run's own queue and its dead-letter queue, the only ones on this emulator so far.
    const { QueueUrls } = await sqs.send(new ListQueuesCommand({ QueueNamePrefix: 'ebs-provisioner-cpu-bench-' }));
    expect(QueueUrls).toHaveLength(2);
    for (const QueueUrl of QueueUrls!) {
      const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['ApproximateNumberOfMessagesNotVisible'] }));
      expect(Attributes?.ApproximateNumberOfMessagesNotVisible, QueueUrl).toBe('0');
    }
  }, 90_000);

  it('gives up on lifecycles still open after its time, and reports them not converged', async () => {
    const report = await measureFunctionCpu({ lifecycles: 2, endpoint: endpoint(), requestsPerClient: 1, timeoutMs: 0 });
    expect(report).toMatchObject({ lifecycles: 2, converged: 0 });
    expect(formatCpuReport(report)).toContain('lifecycles: 0 of 2 converged');
  }, 60_000);
});
