/**
 * A call made on a token taken at the time (a tag change's second call) waits for it only until
 * the invocation stops starting EC2 calls. Calls queued for the same bucket ahead of it can make
 * the wait longer than it looked: one whose token comes after that point is not sent (its answer
 * could be lost with the invocation), its token goes back to this environment's share, and it is
 * made by a later message: one made at once spends that token, without waiting for the refill.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import type { EngineConfig } from '../../lib/engine/config.js';
import { harness, newVolume, volumeKey, volumeOf } from './engine-fixtures.js';

const IDS = ['data-1', 'data-2', 'data-3'];
/** Each environment's buckets: CreateTags one token at a time, one a second; the others ample. */
const BUDGETS: EngineConfig['rateBudgets'] = {
  CreateVolume: { burst: 100, ratePerSecond: 5 },
  DeleteVolume: { burst: 100, ratePerSecond: 5 },
  AttachVolume: { burst: 50, ratePerSecond: 5 },
  CreateTags: { burst: 1, ratePerSecond: 1 },
};

/** Three tag changes, the third one's CreateTags token due past the invocation's last moment for EC2 calls: the run, and the volume left. */
async function tagChangeCutShort() {
  const h = harness({ config: { rateBudgets: BUDGETS, rateWaitMaxMs: 30_000 } });
  for (const id of IDS) await h.store.create(newVolume(id, {}, { tags: { team: 'a', env: 'dev' } }));
  await h.watch();
  for (let i = 0; i < 20; i++) {
    await h.drain();
    await h.clock.advance(1_000);
  }
  for (const id of IDS) expect((await volumeOf(h, id)).status.state).toBe('available');
  await h.clock.advance(10_000);
  const createTagsBefore = h.ebs.calls.CreateTags;

  // Each drops env and changes team: DeleteTags on its reserved token, then CreateTags on one taken then.
  for (const id of IDS) {
    const { spec } = await volumeOf(h, id);
    await h.store.update<VolumeRecord>(volumeKey(id), { spec: { ...spec, tags: { team: 'b' } }, generation: 2 });
  }
  await h.watch();
  const batch = h.queue.receive(100);
  expect(batch.map((r) => r.message.op)).toEqual(['tag-volume', 'tag-volume', 'tag-volume']);
  for (const r of batch) h.queue.delete(r.receiptHandle);

  // 1.5 s of the invocation left for EC2 calls (its 10 s reserve aside): the third CreateTags' token comes 2 s on.
  let done = false;
  const running = h.executor.run(batch.map((r) => ({ messageId: r.messageId, message: r.message })), { remainingTimeMs: 11_500 }).finally(() => (done = true));
  for (let i = 0; i < 100 && !done; i++) await h.clock.advance(100);
  expect((await running).failedMessageIds).toEqual([]);
  expect(h.ebs.calls.CreateTags - createTagsBefore).toBe(2);
  const left = await Promise.all(IDS.map((id) => volumeOf(h, id)));
  expect(left.filter((v) => v.observedGeneration === 2)).toHaveLength(2);
  const deferred = left.find((v) => v.observedGeneration !== 2)!;
  expect(deferred.status).toMatchObject({ code: 'InvocationOutOfTime', attempts: 0 });
  return { h, deferred, createTagsBefore };
}

describe('executor: a token wait that runs past the invocation\'s last moment for EC2 calls', () => {
  it('sends no call after it: the one left is made by a later message', async () => {
    const { h, deferred, createTagsBefore } = await tagChangeCutShort();
    for (let i = 0; i < 30; i++) {
      await h.drain();
      await h.clock.advance(1_000);
    }
    await h.watch();
    expect(h.ebs.calls.CreateTags - createTagsBefore).toBe(3);
    expect(await volumeOf(h, deferred.volumeId)).toMatchObject({ observed: { tags: { team: 'b' } }, observedGeneration: 2 });
  });

  it('gives its token back to the share: the deferred change is made at once by the next invocation', async () => {
    const { h, deferred } = await tagChangeCutShort();
    // At once, before the bucket refills: the token given back serves the deferred change's CreateTags.
    const createTagsAfter = h.ebs.calls.CreateTags;
    const next = h.executor.run(h.batchOf(h.op('tag-volume', volumeKey(deferred.volumeId))));
    await h.clock.advance(0);
    expect(h.ebs.calls.CreateTags - createTagsAfter).toBe(1);
    await h.clock.advance(1_000);
    await next;
    expect((await volumeOf(h, deferred.volumeId)).observedGeneration).toBe(2);
  });
});
