/**
 * A rate token reserved for a call that was not made (the record's claim lost to another
 * invocation between the batch's read and its claim): one of the environment's own share goes
 * back to that share, so the next call spends it at once; one of the shared budget, which takes no
 * refunds, is not given to the environment's share: it travels with the message sent again
 * (`OperationMessage.tokenAt`).
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { DEFAULT_ENGINE_CONFIG, type EngineConfig } from '../../lib/engine/config.js';
import type { SharedRateBudget } from '../../lib/engine/ports.js';
import { MemoryRateBudget } from '../../lib/memory/rate-budget.js';
import { harness, newVolume, volumeKey, volumeOf } from './engine-fixtures.js';

/** EC2's buckets, but DeleteVolume holding one token that comes back every 100 s. */
const ONE_DELETE: EngineConfig['rateBudgets'] = {
  ...DEFAULT_ENGINE_CONFIG.rateBudgets,
  CreateVolume: { burst: 100, ratePerSecond: 5 },
  DeleteVolume: { burst: 1, ratePerSecond: 0.01 },
};

/** A shared budget that can be made unreachable (the executor then spends its own share). */
class SwitchableBudget implements SharedRateBudget {
  reachable = true;
  private readonly inner = new MemoryRateBudget();
  take(...args: Parameters<SharedRateBudget['take']>) {
    if (!this.reachable) return Promise.reject(new Error('rate budget table unavailable'));
    return this.inner.take(...args);
  }
  waitMs(...args: Parameters<SharedRateBudget['waitMs']>) {
    if (!this.reachable) return Promise.reject(new Error('rate budget table unavailable'));
    return this.inner.waitMs(...args);
  }
}

/** Volumes `ids` created, available, then asked to be deleted (their records dying). */
async function dyingVolumes(h: ReturnType<typeof harness>, ids: string[]): Promise<void> {
  for (const id of ids) await h.store.create(newVolume(id));
  await h.executor.run(h.batchOf(...ids.map((id) => h.op('create-volume', volumeKey(id)))));
  await h.settle(10_000);
  for (const id of ids) {
    expect((await volumeOf(h, id)).status.state).toBe('available');
    await h.store.update<VolumeRecord>(volumeKey(id), { life: 'dying' });
  }
  h.queue.receive(100).forEach((r) => h.queue.delete(r.receiptHandle));
}

/** The next batch read of the store is followed at once by another invocation's claim on `volumeId`. */
function claimedByAnotherAfterRead(h: ReturnType<typeof harness>, volumeId: string): void {
  const getMany = h.store.getMany.bind(h.store);
  h.store.getMany = async (keys) => {
    const records = await getMany(keys);
    h.store.getMany = getMany;
    await h.store.claim(volumeKey(volumeId), 'another-invocation', h.clock.now(), 60_000);
    return records;
  };
}

describe('a rate token reserved for a call that was not made, the claim lost', () => {
  it("of the environment's own share: given back, so the next DeleteVolume is made at once", async () => {
    const h = harness({ config: { rateBudgets: ONE_DELETE } });
    await dyingVolumes(h, ['v1', 'v2']);

    claimedByAnotherAfterRead(h, 'v1');
    await h.executor.run(h.batchOf(h.op('delete-volume', volumeKey('v1'))));
    expect(h.ebs.calls.DeleteVolume ?? 0).toBe(0);

    await h.executor.run(h.batchOf(h.op('delete-volume', volumeKey('v2'))));
    expect(h.ebs.calls.DeleteVolume).toBe(1);
    expect((await volumeOf(h, 'v2')).status.state).toBe('deleting');
  });

  it("of the shared budget: carried by the message sent again, not given to the environment's own share", async () => {
    const budget = new SwitchableBudget();
    const h = harness({ rateBudget: budget, config: { rateBudgets: ONE_DELETE, accountRateBudgets: { ...DEFAULT_ENGINE_CONFIG.accountRateBudgets, DeleteVolume: { burst: 1, ratePerSecond: 0.01 } } } });
    await dyingVolumes(h, ['v0', 'v1', 'v2']);
    const environment = h.environment();

    // The shared budget out of reach: v0's DeleteVolume spends the environment's one own token.
    budget.reachable = false;
    await environment.run(h.batchOf(h.op('delete-volume', volumeKey('v0'))));
    expect(h.ebs.calls.DeleteVolume).toBe(1);

    // Reachable again: v1 takes the shared token, and loses its claim.
    budget.reachable = true;
    claimedByAnotherAfterRead(h, 'v1');
    const tokenTakenAt = h.clock.now();
    await environment.run(h.batchOf(h.op('delete-volume', volumeKey('v1'))));
    expect(h.ebs.calls.DeleteVolume).toBe(1);
    const resent = h.queue.pending().filter((p) => p.message.key.kind === 'volume' && p.message.key.volumeId === 'v1');
    expect(resent.map((p) => ({ op: p.message.op, tokenAt: p.message.tokenAt }))).toEqual([{ op: 'delete-volume', tokenAt: tokenTakenAt }]);

    // Out of reach again: the environment's own share is still spent, so v2 waits for its refill.
    budget.reachable = false;
    await environment.run(h.batchOf(h.op('delete-volume', volumeKey('v2'))));
    expect(h.ebs.calls.DeleteVolume).toBe(1);
    expect((await volumeOf(h, 'v2')).status.state).toBe('available');
  });
});
