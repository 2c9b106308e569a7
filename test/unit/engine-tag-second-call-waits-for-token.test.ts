/**
 * The second call of a tag change (CreateTags after DeleteTags) takes its token at the time; with
 * no shared budget it waits on this environment's bucket for as long as the executor may wait for
 * a token (`rateWaitMaxMs`), a token exactly that far away included, rather than being deferred.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { DEFAULT_ENGINE_CONFIG } from '../../lib/engine/config.js';
import { Executor } from '../../lib/engine/executor.js';
import { silentLog } from '../../lib/memory/index.js';
import { harness, newVolume, volumeKey, volumeOf } from './engine-fixtures.js';

const WAIT_MS = 5000;

describe("executor: a tag change's second call whose token is as far away as the executor may wait", () => {
  it('waits for it and is made in the same invocation', async () => {
    const h = harness();
    await h.store.create(newVolume('a', {}, { tags: { team: 'a' } }));
    await h.store.create(newVolume('b', {}, { tags: { team: 'a', env: 'dev' } }));
    await h.watch();
    await h.settle(10_000);
    await h.watch();
    await h.drain();
    for (const id of ['a', 'b']) expect((await volumeOf(h, id)).status.state).toBe('available');

    // One CreateTags token a burst, one every 5 s.
    const rateBudgets = { ...DEFAULT_ENGINE_CONFIG.rateBudgets, CreateTags: { burst: 1, ratePerSecond: 1000 / WAIT_MS } };
    const executor = new Executor({ store: h.store, queue: h.queue, provider: h.ebs, clock: h.clock, metrics: h.metrics, log: silentLog, config: { rateWaitMaxMs: WAIT_MS, concurrentEnvironments: 1, rateBudgets } });
    const a = await volumeOf(h, 'a');
    const b = await volumeOf(h, 'b');
    await h.store.update<VolumeRecord>(volumeKey('a'), { spec: { ...a.spec, tags: { team: 'a', env: 'prod' } }, generation: 2 });
    await h.store.update<VolumeRecord>(volumeKey('b'), { spec: { ...b.spec, tags: { team: 'b' } }, generation: 2 });
    const before = { ...h.ebs.calls };
    // a's CreateTags spends the token; b's DeleteTags has its own bucket, then its CreateTags waits 5 s for the next.
    const run = executor.run(h.batchOf(h.op('tag-volume', volumeKey('a')), h.op('tag-volume', volumeKey('b'))));
    await h.clock.advance(0);
    await h.clock.advance(WAIT_MS);
    expect((await run).failedMessageIds).toEqual([]);
    expect(h.ebs.calls.CreateTags - before.CreateTags).toBe(2);
    expect(h.ebs.calls.DeleteTags - before.DeleteTags).toBe(1);
    expect(await volumeOf(h, 'b')).toMatchObject({ observed: { tags: { team: 'b' } }, observedGeneration: 2, status: { state: 'available', attempts: 0 } });
  });
});
