/**
 * The retry of a failed attempt that finds the record waiting for no attempt (one was made since)
 * is only a look: finding the operation still under way, it schedules no check of its own (the
 * operation's chain goes on). Not so a copy delivered before (its invocation may have failed
 * before sending that operation's first check, which it then is the only one to make), nor one
 * merged with a copy that is no look and no retry: those go on checking.
 */
import { describe, expect, it } from 'vitest';
import type { OperationMessage } from '../../lib/engine/ports.js';
import { harness, newVolume, volumeKey, volumeOf } from './engine-fixtures.js';

const KEY = volumeKey('data-1');
const STALE_RETRY = '2025-12-31T23:00:00.000Z';

/** data-1 being created by EC2 (slowly), its creation's own messages gone: nothing queued. */
async function creating(): Promise<ReturnType<typeof harness>> {
  const h = harness({ ebsTimings: { create: 60 * 60_000 } });
  await h.store.create(newVolume('data-1'));
  await h.watch();
  await h.drain();
  await h.clock.advance(5 * 60_000);
  h.queue.receive(100).forEach((r) => h.queue.delete(r.receiptHandle));
  const volume = await volumeOf(h);
  expect(volume.status.state).toBe('creating');
  expect(volume.status.nextAttemptAt).toBeUndefined();
  return h;
}

const checksQueued = (h: ReturnType<typeof harness>) => h.queued().filter((m) => m.op === 'check-volume' && m.key === 'data-1');
const staleRetry: OperationMessage = { op: 'check-volume', key: KEY, retryOf: STALE_RETRY };

describe('executor: the retry of an attempt no longer waited for, the operation still under way', () => {
  it('delivered the first time, is only a look: no check follows it', async () => {
    const h = await creating();
    await h.executor.run([{ messageId: 'r1', message: staleRetry, receiveCount: 1 }]);
    expect(checksQueued(h)).toEqual([]);
  });

  it('delivered again, the next check follows it', async () => {
    const h = await creating();
    await h.executor.run([{ messageId: 'r1', message: staleRetry, receiveCount: 2 }]);
    expect(checksQueued(h)).toHaveLength(1);
  });

  it('merged with a check that is no look and no retry, the next check follows it', async () => {
    const h = await creating();
    await h.executor.run([
      { messageId: 'r1', message: staleRetry, receiveCount: 1 },
      { messageId: 'c1', message: { op: 'check-volume', key: KEY }, receiveCount: 1 },
    ]);
    expect(checksQueued(h)).toHaveLength(1);
  });
});
