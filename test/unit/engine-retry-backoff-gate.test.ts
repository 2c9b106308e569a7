/**
 * A record whose failed attempt waits out its backoff (`status.nextAttemptAt`): a look that comes
 * meanwhile is held back to that time (`retryNotDue`; counted as skipped). Delivered the first
 * time it sends nothing back, as the failed attempt's own retry brings the attempt then (a copy
 * merged with it that is due later still comes back for its time); delivered again (its
 * invocation may have failed before sending that retry) it comes back at that time. The failed
 * attempt's own retry (`OperationMessage.retryOf`) is never held back, even reaching the record a
 * moment before the time it names (the queue's clock and the executor's may differ a little).
 */
import { describe, expect, it } from 'vitest';
import { ProviderError, type OperationMessage } from '../../lib/engine/ports.js';
import { harness, newVolume, volumeKey, volumeOf } from './engine-fixtures.js';

const KEY = volumeKey('data-1');

/** data-1's first CreateVolume failed (EC2 internal error): its retry queued for `nextAttemptAt`. */
async function waitingOutBackoff() {
  const h = harness();
  await h.store.create(newVolume('data-1'));
  h.ebs.failNext('CreateVolume', new ProviderError('transient', 'InternalError', 'EC2 had an internal error'));
  await h.executor.run(h.batchOf(h.op('create-volume', KEY)));
  const volume = await volumeOf(h);
  expect(volume.status).toMatchObject({ state: 'creating', attempts: 1, nextAttemptAt: expect.any(String) });
  const nextAttemptAt = volume.status.nextAttemptAt!;
  const retry = h.queue.pending().map((p) => p.message);
  expect(retry).toEqual([expect.objectContaining({ op: 'create-volume', retryOf: nextAttemptAt })]);
  return { h, nextAttemptAt, retry: retry[0]! };
}

const look: OperationMessage = { op: 'create-volume', key: KEY, reason: 'reconciler', nudge: true };

describe('a record waiting out the backoff of a failed attempt', () => {
  it('a look delivered the first time makes no call and sends nothing back', async () => {
    const { h, retry } = await waitingOutBackoff();

    await h.executor.run([{ messageId: 'look', message: look, receiveCount: 1 }]);

    expect(h.ebs.calls.CreateVolume).toBe(1);
    expect(h.queue.pending().map((p) => p.message)).toEqual([retry]);
    expect(h.metrics.operations.at(-1)).toMatchObject({ operation: 'create-volume', outcome: 'skipped' });
  });

  it('a look merged with a look due later sends that later one back for its time', async () => {
    const { h, retry } = await waitingOutBackoff();
    const later = h.clock.now() + 2 * 3_600_000;

    await h.executor.run(h.batchOf(look, { ...look, dueAt: later }));

    expect(h.ebs.calls.CreateVolume).toBe(1);
    expect(h.queue.pending().map((p) => p.message)).toEqual([retry, expect.objectContaining({ op: 'create-volume', nudge: true, dueAt: later })]);
  });

  it('a look delivered again makes no call and comes back at the time of the next attempt', async () => {
    const { h, retry, nextAttemptAt } = await waitingOutBackoff();

    await h.executor.run([{ messageId: 'look', message: look, receiveCount: 2 }]);

    expect(h.ebs.calls.CreateVolume).toBe(1);
    const pending = h.queue.pending();
    expect(pending.map((p) => p.message)).toEqual([retry, expect.objectContaining({ op: 'create-volume', nudge: true })]);
    expect(pending[1]!.visibleAt).toBeGreaterThanOrEqual(Date.parse(nextAttemptAt));
    expect(pending[1]!.visibleAt).toBeLessThan(Date.parse(nextAttemptAt) + 1000);
  });

  it("the failed attempt's own retry, a millisecond before its time, makes the attempt", async () => {
    const { h, retry, nextAttemptAt } = await waitingOutBackoff();
    await h.clock.advance(Date.parse(nextAttemptAt) - 1 - h.clock.now());
    h.queue.receive(100);

    await h.executor.run([{ messageId: 'retry', message: retry, receiveCount: 1 }]);

    expect(h.ebs.calls.CreateVolume).toBe(2);
    expect((await volumeOf(h)).ebsVolumeId).toBeDefined();
  });
});
