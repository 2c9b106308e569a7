/**
 * The local runtime stops the pollers before the backend (`LocalRuntime.stop`): a stream poller's
 * stop resolves only once the batch handed to the watcher has been handled.
 */
import type { DynamoDBRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { StreamPoller } from '../../lib/local/stream-poller.js';
import { FakeClock, RecordingLog } from '../../lib/memory/index.js';

const record: DynamoDBRecord = { eventID: 'e1', eventName: 'INSERT', dynamodb: { SequenceNumber: '1' } };

describe('a stream poller stopped while its batch is handled', () => {
  it('resolves its stop only after the handler has finished with that batch', async () => {
    const clock = new FakeClock(0);
    const source = [record];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let invoked!: () => void;
    const invocation = new Promise<void>((resolve) => (invoked = resolve));
    let handled = false;
    const poller = new StreamPoller({
      source: { read: async () => source.splice(0, source.length) },
      clock,
      log: new RecordingLog(),
      idleMs: 200,
      settings: { batchSize: 1, maxBatchingWindowSeconds: 0, bisectBatchOnError: true, retryAttempts: 2, maxRecordAgeSeconds: 60 },
      handler: async () => {
        invoked();
        await held;
        handled = true;
      },
    });
    poller.start();
    await invocation;
    let stopped = false;
    const stop = poller.stop().then(() => (stopped = true));
    for (let i = 0; i < 10; i++) await Promise.resolve();
    expect(stopped).toBe(false);
    release();
    await stop;
    expect(handled).toBe(true);
  });
});
