/**
 * A tag change's second call (CreateTags after DeleteTags) takes a token of this environment's
 * share at the time. When the invocation has less time left than `rateWaitMaxMs` and no token is
 * there, the deferral names its cause: the time left (`InvocationOutOfTime`) when the token is due
 * within `rateWaitMaxMs`, which a full invocation would have waited for, or the budget
 * (`RateBudgetExceeded`) when it is due later still. Either way nothing is sent and no attempt used.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { DEFAULT_ENGINE_CONFIG } from '../../lib/engine/config.js';
import { Executor } from '../../lib/engine/executor.js';
import { silentLog } from '../../lib/memory/index.js';
import { harness, newVolume, volumeKey, volumeOf } from './engine-fixtures.js';

/** CreateTags: one token a burst, the next 5 s later. */
const TOKEN_EVERY_MS = 5000;
/** The invocation's reserve for writes and follow-ups. */
const RESERVE_MS = 10_000;

/** Volumes a and b available; a's tag change sets a key (spending the CreateTags token), b's sets one and removes another; half a second to wait. */
async function tagChanges(rateWaitMaxMs: number) {
  const h = harness();
  await h.store.create(newVolume('a', {}, { tags: { team: 'a' } }));
  await h.store.create(newVolume('b', {}, { tags: { team: 'a', env: 'dev' } }));
  await h.watch();
  await h.settle(10_000);
  await h.watch();
  await h.drain();
  const rateBudgets = { ...DEFAULT_ENGINE_CONFIG.rateBudgets, CreateTags: { burst: 1, ratePerSecond: 1000 / TOKEN_EVERY_MS } };
  const executor = new Executor({ store: h.store, queue: h.queue, provider: h.ebs, clock: h.clock, metrics: h.metrics, log: silentLog, config: { rateWaitMaxMs, concurrentEnvironments: 1, rateBudgets } });
  const a = await volumeOf(h, 'a');
  const b = await volumeOf(h, 'b');
  await h.store.update<VolumeRecord>(volumeKey('a'), { spec: { ...a.spec, tags: { team: 'a', env: 'prod' } }, generation: 2 });
  await h.store.update<VolumeRecord>(volumeKey('b'), { spec: { ...b.spec, tags: { team: 'b' } }, generation: 2 });
  const before = { ...h.ebs.calls };
  const run = executor.run(h.batchOf(h.op('tag-volume', volumeKey('a')), h.op('tag-volume', volumeKey('b'))), { remainingTimeMs: RESERVE_MS + 500 });
  await h.clock.advance(0);
  await h.clock.advance(500);
  expect((await run).failedMessageIds).toEqual([]);
  expect({ createTags: h.ebs.calls.CreateTags - before.CreateTags, deleteTags: h.ebs.calls.DeleteTags - before.DeleteTags }).toEqual({ createTags: 1, deleteTags: 1 });
  return (await volumeOf(h, 'b')).status;
}

describe("a tag change's second call with no token and less time left than rateWaitMaxMs", () => {
  it('the token due exactly rateWaitMaxMs away: deferred for the time left', async () => {
    expect(await tagChanges(TOKEN_EVERY_MS)).toMatchObject({ state: 'available', code: 'InvocationOutOfTime', attempts: 0 });
  });

  it('the token due later than rateWaitMaxMs: deferred for the budget', async () => {
    expect(await tagChanges(TOKEN_EVERY_MS - 1)).toMatchObject({ state: 'available', code: 'RateBudgetExceeded', attempts: 0 });
  });
});
