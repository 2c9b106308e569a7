/**
 * No EC2 call starts once the invocation's reserve for writes and follow-ups is reached (10 s of
 * the time Lambda gives it). A call that waits on this environment's bucket for a token taken at
 * the time (a tag change's second call) may wait up to that point; a wait that ends exactly there
 * leaves the call deferred, unsent, as a call reaching that point any other way is.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { DEFAULT_ENGINE_CONFIG } from '../../lib/engine/config.js';
import { Executor } from '../../lib/engine/executor.js';
import { silentLog } from '../../lib/memory/index.js';
import { harness, newVolume, volumeKey, volumeOf } from './engine-fixtures.js';

const TOKEN_EVERY_MS = 5000;
const RESERVE_MS = 10_000;

/** Volumes a and b available; a's tag change sets a key, b's sets one and removes another; one CreateTags token a burst, one every 5 s. */
async function tagChanges(remainingTimeMs: number) {
  const h = harness();
  await h.store.create(newVolume('a', {}, { tags: { team: 'a' } }));
  await h.store.create(newVolume('b', {}, { tags: { team: 'a', env: 'dev' } }));
  await h.watch();
  await h.settle(10_000);
  await h.watch();
  await h.drain();
  const rateBudgets = { ...DEFAULT_ENGINE_CONFIG.rateBudgets, CreateTags: { burst: 1, ratePerSecond: 1000 / TOKEN_EVERY_MS } };
  const executor = new Executor({ store: h.store, queue: h.queue, provider: h.ebs, clock: h.clock, metrics: h.metrics, log: silentLog, config: { rateWaitMaxMs: 60_000, concurrentEnvironments: 1, rateBudgets } });
  const a = await volumeOf(h, 'a');
  const b = await volumeOf(h, 'b');
  await h.store.update<VolumeRecord>(volumeKey('a'), { spec: { ...a.spec, tags: { team: 'a', env: 'prod' } }, generation: 2 });
  await h.store.update<VolumeRecord>(volumeKey('b'), { spec: { ...b.spec, tags: { team: 'b' } }, generation: 2 });
  const before = { ...h.ebs.calls };
  const run = executor.run(h.batchOf(h.op('tag-volume', volumeKey('a')), h.op('tag-volume', volumeKey('b'))), { remainingTimeMs });
  await h.clock.advance(0);
  await h.clock.advance(TOKEN_EVERY_MS);
  expect((await run).failedMessageIds).toEqual([]);
  return { h, createTags: h.ebs.calls.CreateTags - before.CreateTags, deleteTags: h.ebs.calls.DeleteTags - before.DeleteTags };
}

describe("executor: a tag change's second call waiting for its token up to the invocation's reserve", () => {
  it('the wait ends exactly when the reserve is reached: no CreateTags then, deferred unsent with no attempt used', async () => {
    const { h, createTags, deleteTags } = await tagChanges(RESERVE_MS + TOKEN_EVERY_MS);
    expect({ createTags, deleteTags }).toEqual({ createTags: 1, deleteTags: 1 });
    expect((await volumeOf(h, 'b')).status).toMatchObject({ state: 'available', code: 'InvocationOutOfTime', attempts: 0 });
  });

  it('the wait ends a millisecond before it: the CreateTags is made', async () => {
    const { h, createTags, deleteTags } = await tagChanges(RESERVE_MS + TOKEN_EVERY_MS + 1);
    expect({ createTags, deleteTags }).toEqual({ createTags: 2, deleteTags: 1 });
    expect(await volumeOf(h, 'b')).toMatchObject({ observed: { tags: { team: 'b' } }, observedGeneration: 2 });
  });
});
