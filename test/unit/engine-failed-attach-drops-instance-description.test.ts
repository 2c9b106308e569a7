/**
 * An executor environment reuses an instance it described (`instanceCacheTtlMs`), and a failed
 * attach drops the entry (README, engine settings): the next attach to that instance, even a first
 * one of another record, describes it afresh. A throttled AttachVolume is no failure of the attach:
 * EC2 turned the request away before looking at the instance, and the description stays.
 * (No record left on the instance carries a description of it here, and none waits for a retry
 * of a refused attach: either would decide on its own whether the instance is described.)
 */
import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../lib/engine/ports.js';
import { attachmentKey, harness, newAttachment, newVolume, settleAll } from './engine-fixtures.js';

/**
 * Volumes data-2 and data-3; data-2's first attach (the instance described for it) answered with
 * `error`, then data-2's attachment record removed; a minute later (any throttling backoff
 * over), data-3's first attach to the same instance. Returns the DescribeInstances made for each attach.
 */
async function failedThenFirst(error: ProviderError) {
  const h = harness();
  for (const id of ['data-2', 'data-3']) await h.store.create(newVolume(id));
  await settleAll(h);
  const before = h.ebs.calls.DescribeInstances ?? 0;
  h.ebs.failNext('AttachVolume', error);
  await h.store.create(newAttachment('data-2'));
  await h.queue.send([{ message: h.op('attach', attachmentKey('data-2')), delaySeconds: 0 }]);
  await h.drain();
  expect((await h.store.get(attachmentKey('data-2')))!.status).toMatchObject({ state: 'pending', code: error.code });
  const afterFailed = h.ebs.calls.DescribeInstances ?? 0;
  await h.store.remove(attachmentKey('data-2'));
  await h.clock.advance(60_000);
  const beforeNext = h.ebs.calls.DescribeInstances ?? 0;
  await h.store.create(newAttachment('data-3'));
  await h.queue.send([{ message: h.op('attach', attachmentKey('data-3')), delaySeconds: 0 }]);
  await h.drain();
  expect((await h.store.get(attachmentKey('data-3')))!.status.state).toBe('attaching');
  return { failed: afterFailed - before, next: (h.ebs.calls.DescribeInstances ?? 0) - beforeNext };
}

describe("an attach's failure and the instance's description the environment holds", () => {
  it('a failed AttachVolume drops it: the next attach to the instance, of another record, describes the instance again', async () => {
    expect(await failedThenFirst(new ProviderError('transient', 'InternalError', 'EC2 had an internal error'))).toEqual({ failed: 1, next: 1 });
  });

  it('a throttled AttachVolume keeps it: the next first attach to the instance reuses the description', async () => {
    expect(await failedThenFirst(new ProviderError('throttled', 'RequestLimitExceeded', 'Request limit exceeded.'))).toEqual({ failed: 1, next: 0 });
  });
});
