/**
 * The local runtime's orderly stop stops the pollers before the emulator (docs/local.md, "Ctrl-C"):
 * the queue poller's stop ends only once the batch its handler is working on has been handled and
 * the messages that succeeded deleted, their delete request answered.
 */
import type { SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { QueuePoller } from '../../lib/local/queue-poller.js';
import { FakeClock, RecordingLog } from '../../lib/memory/index.js';

describe('QueuePoller stop', () => {
  it('waits for the batch under way: its handler ends and its messages are deleted before the stop is over', async () => {
    const clock = new FakeClock(0);
    const visible: SQSRecord[] = [{ messageId: 'a', receiptHandle: 'r-a', body: '{}' } as SQSRecord];
    const deleted: string[] = [];
    const poller = new QueuePoller({
      source: {
        receive: async (max) => visible.splice(0, max),
        // A DeleteMessageBatch request that takes 100 ms.
        delete: async (records) => {
          await clock.sleep(100);
          deleted.push(...records.map((r) => r.messageId));
        },
      },
      clock,
      log: new RecordingLog(),
      idleMs: 200,
      settings: { batchSize: 10, maxBatchingWindowSeconds: 0, maxConcurrency: 1 },
      handler: async () => {
        await clock.sleep(5_000);
        return { batchItemFailures: [] };
      },
    });
    poller.start();
    await clock.advance(1_000);
    let stopped = false;
    const stopping = poller.stop().then(() => (stopped = true));
    await clock.advance(3_000);
    expect(stopped).toBe(false);
    expect(deleted).toEqual([]);
    await clock.advance(1_000); // the handler is done; its messages' delete is under way
    expect(stopped).toBe(false);
    await clock.advance(100);
    expect(stopped).toBe(true);
    expect(deleted).toEqual(['a']);
    await stopping;
  });
});
