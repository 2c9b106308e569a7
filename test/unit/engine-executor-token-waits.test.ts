/**
 * Rate tokens at the moment of the call. A call made without a reserved rate token (a tag change's
 * CreateTags after its DeleteTags) waits for one only until the invocation's deadline
 * (INVOCATION_RESERVE_MS before Lambda's end), as a reserved token is only ever granted within it:
 * one that would come later is deferred, unsent. A token of the shared budget given up because EC2
 * throttled meanwhile is not handed to the environment's own share, which holds it back after a refusal.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_ENGINE_CONFIG, type EngineConfig } from '../../lib/engine/config.js';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { MemoryRateBudget } from '../../lib/memory/rate-budget.js';
import { ProviderError } from '../../lib/engine/ports.js';
import { attachmentKey, harness, newAttachment, newVolume, volumeKey, volumeOf } from './engine-fixtures.js';

/** EC2's buckets, but CreateTags holding one token that comes back every 5 s. */
const SLOW_CREATE_TAGS: EngineConfig['rateBudgets'] = {
  CreateVolume: { burst: 100, ratePerSecond: 5 },
  DeleteVolume: { burst: 100, ratePerSecond: 5 },
  AttachVolume: { burst: 50, ratePerSecond: 5 },
  CreateTags: { burst: 1, ratePerSecond: 0.2 },
};

const DEFAULT_ACCOUNT_BUDGETS = DEFAULT_ENGINE_CONFIG.accountRateBudgets;

async function retag(h: ReturnType<typeof harness>, tags: Record<string, string>, remainingTimeMs?: number): Promise<void> {
  const volume = await volumeOf(h);
  await h.store.update<VolumeRecord>(volumeKey('data-1'), { spec: { ...volume.spec, tags }, generation: volume.generation + 1 }, {});
  const run = h.executor.run(h.batchOf(h.op('tag-volume', volumeKey('data-1'))), remainingTimeMs === undefined ? {} : { remainingTimeMs });
  // Time enough for any wait for a token (none is longer than rateWaitMaxMs).
  await h.clock.advance(remainingTimeMs ?? 0);
  await run;
}

describe.each([
  ['its own share', false],
  ['the shared budget', true],
])('executor: a call without a reserved rate token, from %s', (_, shared) => {
  it('is not made after the invocation deadline; deferred unsent, it is made by the next invocation', async () => {
    const config: Partial<EngineConfig> = shared
      ? { rateWaitMaxMs: 10_000, accountRateBudgets: { ...SLOW_CREATE_TAGS } }
      : { rateWaitMaxMs: 10_000, rateBudgets: SLOW_CREATE_TAGS };
    const h = harness({ config, ...(shared ? { rateBudget: new MemoryRateBudget() } : {}) });
    await h.store.create(newVolume('data-1', {}, { tags: { a: '1' } }));
    await h.watch();
    await h.settle(10_000);
    await h.watch();
    h.changes.splice(0);
    expect((await volumeOf(h)).status.state).toBe('available');
    // A tag added: its CreateTags spends the one token.
    await retag(h, { a: '1', c: '3' });
    expect(h.ebs.calls.CreateTags).toBe(1);
    await h.clock.advance(1_000);

    // Two removed and one added, with 12 s of the invocation left: the deadline is 2 s away, the CreateTags token 4 s.
    const calledAt: number[] = [];
    const createTags = h.ebs.createTags.bind(h.ebs);
    h.ebs.createTags = async (id, tags) => {
      calledAt.push(h.clock.now());
      return createTags(id, tags);
    };
    const deadline = h.clock.now() + 2_000;
    await retag(h, { b: '2' }, 12_000);
    expect(h.ebs.calls.DeleteTags).toBe(1);
    expect(calledAt.filter((at) => at > deadline)).toEqual([]);
    expect(calledAt).toEqual([]);
    const deferred = await volumeOf(h);
    expect(deferred.status).toMatchObject({ code: 'InvocationOutOfTime', attempts: 0 });
    expect(deferred.claim).toBeUndefined();

    // Its retry makes it.
    const retry = h.queue.receive(10);
    expect(retry.map((r) => r.message.op)).toContain('tag-volume');
    await h.clock.advanceTo(Math.max(...retry.map((r) => r.message.dueAt ?? 0)));
    const run = h.executor.run(retry.map((r) => ({ messageId: r.messageId, message: r.message })));
    await h.clock.advance(30_000);
    await run;
    expect(calledAt).toHaveLength(1);
    expect(h.ebs.volume((await volumeOf(h)).ebsVolumeId!)!.tags).toMatchObject({ b: '2' });
    expect(h.ebs.volume((await volumeOf(h)).ebsVolumeId!)!.tags).not.toHaveProperty('a');
    expect((await volumeOf(h)).status.code).toBeUndefined();
  });
});

describe('executor: a shared rate token given up because EC2 throttled since it was taken', () => {
  it("is not given to the environment's own share, so the next call after the refusal is still held to that slowed share", async () => {
    // The environment's own share of the mutating bucket: one token, 0.2 a second (0.1 once slowed by a refusal).
    const own: EngineConfig['rateBudgets'] = {
      ...SLOW_CREATE_TAGS,
      AttachVolume: { burst: 1, ratePerSecond: 0.2 },
    };
    const h = harness({
      rateBudget: new MemoryRateBudget(),
      config: { rateWaitMaxMs: 10_000, rateBudgets: own, accountRateBudgets: { ...DEFAULT_ACCOUNT_BUDGETS, AttachVolume: { burst: 1, ratePerSecond: 1 } } },
    });
    const ids = ['v1', 'v2', 'v3'];
    for (const id of ids) await h.store.create(newVolume(id));
    await h.executor.run(h.batchOf(...ids.map((id) => h.op('create-volume', volumeKey(id)))));
    await h.settle(10_000);
    for (const id of ids) await h.store.create(newAttachment(id));
    const attachmentOf = async (id: string) => (await h.store.get(attachmentKey(id)))!;
    const environment = h.environment();
    const before = h.ebs.calls.AttachVolume;

    // Two attaches, on the shared tokens of now and 1 s later; EC2 refuses the first for its rate.
    h.ebs.failNext('AttachVolume', new ProviderError('throttled', 'RequestLimitExceeded', 'Request limit exceeded.'));
    const first = environment.run(h.batchOf(h.op('attach', attachmentKey('v1')), h.op('attach', attachmentKey('v2'))));
    await h.clock.advance(1_500);
    await first;
    expect(h.ebs.calls.AttachVolume - before).toBe(1);
    expect((await attachmentOf('v2')).status).toMatchObject({ state: 'pending', code: 'RateBudgetExceeded', attempts: 0 });

    // A third, on a shared token 1.5 s later: the environment's own slowed share has not refilled a token since the refusal.
    const second = environment.run(h.batchOf(h.op('attach', attachmentKey('v3'))));
    await h.clock.advance(10_000);
    await second;
    expect(h.ebs.calls.AttachVolume - before).toBe(1);
    expect((await attachmentOf('v3')).status).toMatchObject({ state: 'pending', code: 'RateBudgetExceeded', attempts: 0 });
  });
});
