import { describe, expect, it } from 'vitest';
import { QueuePoller } from '../../lib/local/queue-poller.js';
import { StreamPoller } from '../../lib/local/stream-poller.js';
import { FakeClock, RecordingLog } from '../../lib/memory/index.js';

/** Reads over one second of an empty source, the poller started twice; then its stop. */
async function readsInASecond(start: (read: () => Promise<never[]>, clock: FakeClock) => { start(): void; stop(): Promise<void> }): Promise<number> {
  const clock = new FakeClock(0);
  let reads = 0;
  const poller = start(async () => {
    reads++;
    return [];
  }, clock);
  poller.start();
  poller.start();
  await clock.advance(999);
  const stopped = poller.stop();
  await clock.advance(200);
  await stopped;
  return reads;
}

describe('a poller started a second time', () => {
  it('the queue poller keeps its maxConcurrency workers, each reading once per idle wait: no second set', async () => {
    const reads = await readsInASecond(
      (receive, clock) =>
        new QueuePoller({ source: { receive, delete: async () => {} }, clock, log: new RecordingLog(), idleMs: 200, handler: async () => ({ batchItemFailures: [] }), settings: { batchSize: 10, maxBatchingWindowSeconds: 0, maxConcurrency: 2 } }),
    );
    // 2 workers × reads at 0, 200, 400, 600, 800 ms.
    expect(reads).toBe(10);
  });

  it('the stream poller keeps its one loop, reading once per idle wait: records are never read by two loops', async () => {
    const reads = await readsInASecond(
      (read, clock) =>
        new StreamPoller({
          source: { read },
          clock,
          log: new RecordingLog(),
          idleMs: 200,
          settings: { batchSize: 4, maxBatchingWindowSeconds: 1, bisectBatchOnError: true, retryAttempts: 2, maxRecordAgeSeconds: 60 },
          handler: async () => ({ batchItemFailures: [] }),
        }),
    );
    expect(reads).toBe(5);
  });
});
