/**
 * A token a deferred message carries (`OperationMessage.tokenAt`) was taken for the first call of
 * that message's operation, in that call's EC2 bucket. When the record asks another call first by
 * the time the message comes back (a modification deferred for a token, then a tag change, which
 * goes first), that call takes a token of its own bucket: the carried one is no token of it.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { DEFAULT_ENGINE_CONFIG } from '../../lib/engine/config.js';
import type { OperationMessage } from '../../lib/engine/ports.js';
import { MemoryRateBudget } from '../../lib/memory/rate-budget.js';
import { data1Created, harness, volumeKey, volumeOf } from './engine-fixtures.js';

const ONE_CREATE_TAGS = { burst: 1, ratePerSecond: 0.01 };

describe('a carried rate token of another bucket than the call the record asks first', () => {
  it("is not spent on that call: a CreateTags with its bucket's shared tokens all taken is deferred", async () => {
    const budget = new MemoryRateBudget();
    const accountRateBudgets = { ...DEFAULT_ENGINE_CONFIG.accountRateBudgets, CreateTags: ONE_CREATE_TAGS };
    const h = harness({ rateBudget: budget, config: { accountRateBudgets }, ebsTimings: { modify: 1000, optimize: 1000 } });
    await data1Created(h, 10_000);
    const volume = await volumeOf(h);
    expect(volume.status.state).toBe('available');

    // The client asks for a larger volume, then for a tag as well.
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { spec: { ...volume.spec, sizeGiB: 20, tags: { team: 'storage' } }, generation: volume.generation + 1 });
    // Every CreateTags token of the shared budget is taken (by other environments).
    expect((await budget.take('CreateTags', 1, ONE_CREATE_TAGS, h.clock.now(), 0)).usableAt).toHaveLength(1);

    // The modification's message, deferred earlier, carries a token of the mutating bucket usable now.
    const modify: OperationMessage = { op: 'modify-volume', key: volumeKey('data-1'), reason: 'waiting for the ModifyVolume rate budget', tokenAt: h.clock.now() };
    expect((await h.executor.run(h.batchOf(modify))).failedMessageIds).toEqual([]);

    expect(h.ebs.calls.CreateTags ?? 0).toBe(0);
    expect(h.ebs.calls.ModifyVolume ?? 0).toBe(0);
    const deferred = h.queue.pending().map((p) => p.message);
    expect(deferred).toEqual([expect.objectContaining({ key: volumeKey('data-1') })]);
    expect(deferred[0]!.tokenAt).toBeGreaterThan(h.clock.now());
  });
});
