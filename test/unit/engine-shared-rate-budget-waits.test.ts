/**
 * The shared rate budget as the executor spends it: operations whose tokens lie beyond the
 * reservation horizon come back one refill apart, not all at once; a call made without a reserved
 * token waits for a shared token due within `rateWaitMaxMs` and is made when it is usable; and a
 * call EC2 throttles is a throttled wait even when the budget cannot count the refusal.
 */
import { describe, expect, it } from 'vitest';
import type { RateBucket, RateBudget } from '../../lib/engine/config.js';
import { DEFAULT_ENGINE_CONFIG, type EngineConfig } from '../../lib/engine/config.js';
import type { AttachmentRecord, VolumeRecord } from '../../lib/domain/records.js';
import { ProviderError, type TokensTaken } from '../../lib/engine/ports.js';
import { MemoryRateBudget } from '../../lib/memory/rate-budget.js';
import { attachmentKey, harness, newAttachment, newVolume, volumeKey, volumeOf } from './engine-fixtures.js';

const ACCOUNT = DEFAULT_ENGINE_CONFIG.accountRateBudgets;

describe('executor: operations whose shared tokens lie beyond the reservation horizon', () => {
  it('come back when the bucket would have their tokens, one refill apart, and are made then', async () => {
    // One CreateVolume token, refilled every 100 s; tokens are taken at most 50 s ahead.
    const config: Partial<EngineConfig> = { accountRateBudgets: { ...ACCOUNT, CreateVolume: { burst: 1, ratePerSecond: 0.01 } }, tokenReservationHorizonMs: 50_000 };
    const h = harness({ config, rateBudget: new MemoryRateBudget() });
    for (const id of ['data-1', 'data-2', 'data-3']) await h.store.create(newVolume(id));
    await h.executor.run(h.batchOf(...['data-1', 'data-2', 'data-3'].map((id) => h.op('create-volume', volumeKey(id)))));

    expect(h.createRequests).toHaveLength(1);
    const deferred = h.queued().filter((message) => message.op === 'create-volume');
    expect(deferred.map((message) => message.delaySeconds).sort((a, b) => a - b)).toEqual([100, 200]);
    for (const id of ['data-2', 'data-3']) expect((await volumeOf(h, id)).status).toMatchObject({ state: 'pending', attempts: 0 });

    await h.settle(200_000, 5_000);
    expect(h.createRequests).toHaveLength(3);
  });
});

describe('executor: a call made without a reserved token, from the shared budget', () => {
  it('waits for a token due within rateWaitMaxMs and is made once it is usable', async () => {
    // CreateTags: one token, back every 5 s.
    const config: Partial<EngineConfig> = { rateWaitMaxMs: 10_000, accountRateBudgets: { ...ACCOUNT, CreateTags: { burst: 1, ratePerSecond: 0.2 } } };
    const h = harness({ config, rateBudget: new MemoryRateBudget() });
    await h.store.create(newVolume('data-1', {}, { tags: { a: '1' } }));
    await h.watch();
    await h.settle(10_000);
    await h.watch();
    expect(h.ebs.calls.CreateTags).toBe(0);
    const retag = async (tags: Record<string, string>) => {
      const volume = await volumeOf(h);
      await h.store.update<VolumeRecord>(volumeKey('data-1'), { spec: { ...volume.spec, tags }, generation: volume.generation + 1 });
      let done = false;
      const run = h.executor.run(h.batchOf(h.op('tag-volume', volumeKey('data-1'))), { remainingTimeMs: 120_000 }).then(() => (done = true));
      // Time moves on in small steps while the invocation runs, as it does for a Lambda.
      while (!done) await h.clock.advance(100);
      await run;
    };
    // A tag added: its CreateTags (the first call, on a reserved token) spends the one token.
    const start = h.clock.now();
    await retag({ a: '1', b: '2' });
    expect(h.ebs.calls.CreateTags).toBe(1);

    // One removed, one added, 1 s later: DeleteTags first; the CreateTags after it has no reserved token and waits for the shared one.
    const calledAt: number[] = [];
    const createTags = h.ebs.createTags.bind(h.ebs);
    h.ebs.createTags = async (id, tags) => {
      calledAt.push(h.clock.now());
      return createTags(id, tags);
    };
    await h.clock.advanceTo(start + 1_000);
    await retag({ b: '2', c: '3' });
    expect(h.ebs.calls.DeleteTags).toBe(1);
    expect(calledAt).toHaveLength(1);
    // The shared token of the first CreateTags (at `start`) comes back 5 s later; the call waited for it, in this invocation.
    expect(calledAt[0]).toBeGreaterThanOrEqual(start + 5_000);
    expect(calledAt[0]).toBeLessThan(start + 5_000 + 1_000);
    const volume = await volumeOf(h);
    expect(h.ebs.volume(volume.ebsVolumeId!)?.tags).toMatchObject({ b: '2', c: '3' });
    expect(h.ebs.volume(volume.ebsVolumeId!)?.tags).not.toHaveProperty('a');
    expect(volume.status.code).toBeUndefined();
  });
});

/** The shared budget, except that counting a refusal (a take with no limit on the wait) cannot reach it. */
class RefusalsUncounted extends MemoryRateBudget {
  refusalsTried = 0;
  override async take(bucket: RateBucket, count: number, budget: RateBudget, now: number, maxWaitMs: number): Promise<TokensTaken> {
    if (maxWaitMs === Number.POSITIVE_INFINITY) {
      this.refusalsTried++;
      throw new Error('rate budget table unavailable');
    }
    return super.take(bucket, count, budget, now, maxWaitMs);
  }
}

describe('executor: a call EC2 throttles while the shared budget cannot be reached to count the refusal', () => {
  it('is a throttled wait all the same (no attempt used), and its retry is made', async () => {
    const budget = new RefusalsUncounted();
    const h = harness({ rateBudget: budget });
    await h.store.create(newVolume('data-1'));
    await h.watch();
    await h.settle(10_000);
    await h.store.create(newAttachment('data-1'));
    h.ebs.failNext('AttachVolume', new ProviderError('throttled', 'RequestLimitExceeded', 'Request limit exceeded.'));
    const { failedMessageIds } = await h.executor.run(h.batchOf(h.op('attach', attachmentKey('data-1'))));

    expect(budget.refusalsTried).toBe(1);
    expect(failedMessageIds).toEqual([]);
    const throttled = (await h.store.get(attachmentKey('data-1'))) as AttachmentRecord;
    expect(throttled.status).toMatchObject({ state: 'pending', code: 'RequestLimitExceeded', attempts: 0 });
    expect(h.queued()).toContainEqual(expect.objectContaining({ op: 'attach', key: 'data-1/i-0123456789abcdef0' }));

    await h.settle(120_000);
    expect(h.ebs.calls.AttachVolume).toBe(2);
    expect(((await h.store.get(attachmentKey('data-1'))) as AttachmentRecord).status).toMatchObject({ state: 'attached' });
  });
});
