/**
 * A batch's copies of one record's message go back as one message when the operation is deferred
 * for want of a rate token. That message is still the retry of a failed attempt
 * (`OperationMessage.retryOf`) only when every copy that was an operation's message was one: a
 * copy that is the operation's own message (a client's change) makes it the operation's own, which
 * no backoff holds back. Retries of several attempts go back as the retry of the last copy's.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { DEFAULT_ENGINE_CONFIG } from '../../lib/engine/config.js';
import type { OperationMessage } from '../../lib/engine/ports.js';
import { harness, newVolume, volumeKey, volumeOf } from './engine-fixtures.js';

const KEY = volumeKey('data-1');

/** data-1 available with its tags changed, and an executor whose one CreateTags token is spent. */
async function tagChangeWithoutToken() {
  const h = harness({ config: { rateBudgets: { ...DEFAULT_ENGINE_CONFIG.rateBudgets, CreateVolume: { burst: 100, ratePerSecond: 5 }, CreateTags: { burst: 1, ratePerSecond: 0.01 } } } });
  await h.store.create(newVolume('data-1', {}, { tags: { team: 'a' } }));
  await h.store.create(newVolume('data-2'));
  await h.executor.run(h.batchOf(h.op('create-volume', KEY), h.op('create-volume', volumeKey('data-2'))));
  await h.settle(10_000);
  expect((await volumeOf(h)).status.state).toBe('available');
  // data-2's tag spends the one CreateTags token.
  const other = await volumeOf(h, 'data-2');
  await h.store.update<VolumeRecord>(volumeKey('data-2'), { spec: { ...other.spec, tags: { team: 'b' } }, generation: other.generation + 1 });
  await h.executor.run(h.batchOf(h.op('tag-volume', volumeKey('data-2'))));
  expect(h.ebs.calls.CreateTags).toBe(1);
  const volume = await volumeOf(h);
  await h.store.update<VolumeRecord>(KEY, { spec: { ...volume.spec, tags: { team: 'a', env: 'prod' } }, generation: volume.generation + 1 });
  h.queue.receive(100).forEach((r) => h.queue.delete(r.receiptHandle));
  return h;
}

describe("copies of a record's message deferred for a rate token", () => {
  it("with the operation's own message among them: sent back as the operation's own, not as a retry", async () => {
    const h = await tagChangeWithoutToken();
    const retry: OperationMessage = { op: 'tag-volume', key: KEY, reason: 'retrying', retryOf: new Date(h.clock.now() - 60_000).toISOString() };
    const own: OperationMessage = { op: 'tag-volume', key: KEY, reason: 'spec changed' };

    await h.executor.run(h.batchOf(retry, own));

    expect(h.ebs.calls.CreateTags).toBe(1);
    const deferred = h.queue.pending().map((p) => p.message);
    expect(deferred).toEqual([expect.objectContaining({ op: 'tag-volume', key: KEY })]);
    expect(deferred[0]).not.toHaveProperty('retryOf');
  });

  it('all retries of one attempt: sent back as that retry', async () => {
    const h = await tagChangeWithoutToken();
    const attempt = new Date(h.clock.now() - 60_000).toISOString();
    const retry: OperationMessage = { op: 'tag-volume', key: KEY, reason: 'retrying', retryOf: attempt };

    await h.executor.run(h.batchOf(retry, { ...retry }));

    expect(h.queue.pending().map((p) => p.message)).toEqual([expect.objectContaining({ op: 'tag-volume', retryOf: attempt })]);
  });
  it("retries of two attempts: sent back as the retry of the last copy's attempt", async () => {
    const h = await tagChangeWithoutToken();
    const first = new Date(h.clock.now() - 120_000).toISOString();
    const second = new Date(h.clock.now() - 60_000).toISOString();
    // The record waits for the second attempt (due now).
    const volume = await volumeOf(h);
    await h.store.update<VolumeRecord>(KEY, { status: { ...volume.status, attempts: 1, code: 'InternalError', message: 'EC2 had an internal error', nextAttemptAt: second } });

    await h.executor.run(h.batchOf({ op: 'tag-volume', key: KEY, retryOf: first }, { op: 'tag-volume', key: KEY, retryOf: second }));

    expect(h.ebs.calls.CreateTags).toBe(1);
    expect(h.queue.pending().map((p) => p.message)).toEqual([expect.objectContaining({ op: 'tag-volume', retryOf: second })]);
  });
});
