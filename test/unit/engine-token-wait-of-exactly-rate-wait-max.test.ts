/**
 * A call with no token reserved in its bucket (a tag change's second call) may wait for one of this
 * environment's share up to `rateWaitMaxMs`, that bound included: a token exactly that far off is
 * waited for and the call made, when the invocation has time enough.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { DEFAULT_ENGINE_CONFIG } from '../../lib/engine/config.js';
import { Executor } from '../../lib/engine/executor.js';
import { silentLog } from '../../lib/memory/index.js';
import { harness, newVolume, volumeKey, volumeOf } from './engine-fixtures.js';

const TOKEN_EVERY_MS = 5000;

describe("a tag change's second call whose token is exactly rateWaitMaxMs off", () => {
  it('waits for it and makes the CreateTags', async () => {
    const h = harness();
    await h.store.create(newVolume('a', {}, { tags: { team: 'a' } }));
    await h.store.create(newVolume('b', {}, { tags: { team: 'a', env: 'dev' } }));
    await h.watch();
    await h.settle(10_000);
    await h.watch();
    await h.drain();
    // One CreateTags token a burst, one every 5 s; a call may wait 5 s for one.
    const rateBudgets = { ...DEFAULT_ENGINE_CONFIG.rateBudgets, CreateTags: { burst: 1, ratePerSecond: 1000 / TOKEN_EVERY_MS } };
    const executor = new Executor({
      store: h.store,
      queue: h.queue,
      provider: h.ebs,
      clock: h.clock,
      metrics: h.metrics,
      log: silentLog,
      config: { rateWaitMaxMs: TOKEN_EVERY_MS, concurrentEnvironments: 1, rateBudgets },
    });
    const a = await volumeOf(h, 'a');
    const b = await volumeOf(h, 'b');
    // a sets a key (CreateTags, its token reserved); b sets one and removes another (DeleteTags, then CreateTags on a token taken then).
    await h.store.update<VolumeRecord>(volumeKey('a'), { spec: { ...a.spec, tags: { team: 'a', env: 'prod' } }, generation: 2 });
    await h.store.update<VolumeRecord>(volumeKey('b'), { spec: { ...b.spec, tags: { team: 'b' } }, generation: 2 });
    const before = { ...h.ebs.calls };

    const run = executor.run(h.batchOf(h.op('tag-volume', volumeKey('a')), h.op('tag-volume', volumeKey('b'))), { remainingTimeMs: 15 * 60_000 });
    await h.clock.advance(0);
    await h.clock.advance(TOKEN_EVERY_MS);
    expect((await run).failedMessageIds).toEqual([]);

    expect({ createTags: h.ebs.calls.CreateTags - before.CreateTags, deleteTags: h.ebs.calls.DeleteTags - before.DeleteTags }).toEqual({ createTags: 2, deleteTags: 1 });
    expect(await volumeOf(h, 'b')).toMatchObject({ observed: { tags: { team: 'b' } }, observedGeneration: 2 });
  });
});
