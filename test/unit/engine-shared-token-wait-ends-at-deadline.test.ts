/**
 * No EC2 call starts once the invocation's reserve for writes and follow-ups is reached (10 s of the
 * time Lambda gives it). A call without a reserved token waits for a token of the shared budget up to
 * that point; a token usable exactly there leaves the call deferred, unsent, as a call reaching that
 * point any other way is.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { DEFAULT_ENGINE_CONFIG, type EngineConfig } from '../../lib/engine/config.js';
import { MemoryRateBudget } from '../../lib/memory/rate-budget.js';
import { harness, newVolume, volumeKey, volumeOf } from './engine-fixtures.js';

const RESERVE_MS = 10_000;
/** CreateTags of the shared budget: one token, back every 5 s. */
const TOKEN_EVERY_MS = 5_000;

/** data-1's tag added (spending the shared CreateTags token), then 1 s later one removed and one added, in an invocation given `remainingTimeMs`. */
async function secondRetag(remainingTimeMs: number) {
  const config: Partial<EngineConfig> = {
    rateWaitMaxMs: 60_000,
    accountRateBudgets: { ...DEFAULT_ENGINE_CONFIG.accountRateBudgets, CreateTags: { burst: 1, ratePerSecond: 1000 / TOKEN_EVERY_MS } },
  };
  const h = harness({ config, rateBudget: new MemoryRateBudget() });
  await h.store.create(newVolume('data-1', {}, { tags: { a: '1' } }));
  await h.watch();
  await h.settle(10_000);
  await h.watch();
  const retag = async (tags: Record<string, string>, timeMs: number) => {
    const volume = await volumeOf(h);
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { spec: { ...volume.spec, tags }, generation: volume.generation + 1 });
    let done = false;
    const run = h.executor.run(h.batchOf(h.op('tag-volume', volumeKey('data-1'))), { remainingTimeMs: timeMs }).then(() => (done = true));
    while (!done) await h.clock.advance(100);
    await run;
  };
  const start = h.clock.now();
  await retag({ a: '1', b: '2' }, 120_000);
  expect(h.ebs.calls.CreateTags).toBe(1);
  await h.clock.advanceTo(start + 1_000);
  await retag({ b: '2', c: '3' }, remainingTimeMs);
  expect(h.ebs.calls.DeleteTags).toBe(1);
  return { h, secondCreateTags: h.ebs.calls.CreateTags - 1 };
}

describe("executor: a tag change's second call waiting for a shared token up to the invocation's reserve", () => {
  it('the token is usable exactly when the reserve is reached: no CreateTags then, deferred unsent with no attempt used', async () => {
    // Called at start + 1 s; the token is back at start + 5 s, which is where the reserve begins.
    const { h, secondCreateTags } = await secondRetag(RESERVE_MS + TOKEN_EVERY_MS - 1_000);
    expect(secondCreateTags).toBe(0);
    expect((await volumeOf(h)).status).toMatchObject({ code: 'InvocationOutOfTime', attempts: 0 });
  });

  it('the token is usable a millisecond before: the CreateTags is made', async () => {
    const { h, secondCreateTags } = await secondRetag(RESERVE_MS + TOKEN_EVERY_MS - 1_000 + 1);
    expect(secondCreateTags).toBe(1);
    expect((await volumeOf(h)).status.code).toBeUndefined();
  });
});
