/**
 * A call made without a reserved rate token (a tag change's CreateTags after its DeleteTags) waits
 * for one only until the invocation's deadline (INVOCATION_RESERVE_MS before Lambda's end), as a
 * reserved token is only ever granted within it: one that would come later is deferred, unsent.
 */
import { describe, expect, it } from 'vitest';
import type { EngineConfig } from '../../lib/engine/config.js';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { MemoryRateBudget } from '../../lib/memory/rate-budget.js';
import { harness, newVolume, volumeKey, volumeOf } from './engine-fixtures.js';

/** EC2's buckets, but CreateTags holding one token that comes back every 5 s. */
const SLOW_CREATE_TAGS: EngineConfig['rateBudgets'] = {
  CreateVolume: { burst: 100, ratePerSecond: 5 },
  DeleteVolume: { burst: 100, ratePerSecond: 5 },
  AttachVolume: { burst: 50, ratePerSecond: 5 },
  DetachVolume: { burst: 50, ratePerSecond: 5 },
  ModifyVolume: { burst: 50, ratePerSecond: 5 },
  CreateTags: { burst: 1, ratePerSecond: 0.2 },
  DeleteTags: { burst: 50, ratePerSecond: 5 },
};

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
