/**
 * A rate token of the environment's own share reserved for a call that was not made (the record's
 * claim lost to another invocation between the batch's read and its claim) goes back to that share,
 * so the next call spends it at once, and is not carried by the message sent again. (One of the
 * shared budget, which takes no refunds, travels with the message instead:
 * engine-shared-token-not-refunded-to-own-share.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { DEFAULT_ENGINE_CONFIG, type EngineConfig } from '../../lib/engine/config.js';
import type { RecordStore } from '../../lib/engine/ports.js';
import { Executor } from '../../lib/engine/executor.js';
import { silentLog } from '../../lib/memory/log.js';
import { harness, newVolume, volumeKey, volumeOf } from './engine-fixtures.js';

/** EC2's buckets, but DeleteVolume holding one token that comes back every 100 s. */
const ONE_DELETE: EngineConfig['rateBudgets'] = {
  ...DEFAULT_ENGINE_CONFIG.rateBudgets,
  CreateVolume: { burst: 100, ratePerSecond: 5 },
  DeleteVolume: { burst: 1, ratePerSecond: 0.01 },
};

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

describe("a token of the environment's own share, not spent because the call was not made", () => {
  it('is refunded, not carried by the message sent again: back, the operation takes a token as any other', async () => {
    // No shared budget: every token is of this environment's own share.
    const h = harness();
    await h.store.create(newVolume('a'));
    const start = h.clock.now();
    // Another invocation claims the record between this one's read and its claim.
    let meanwhile: (() => Promise<unknown>) | undefined = () => h.store.claim(volumeKey('a'), 'other-invocation', start, 60_000);
    const store: RecordStore = Object.create(h.store);
    store.getMany = async (keys) => {
      const records = await h.store.getMany(keys);
      await meanwhile?.();
      meanwhile = undefined;
      return records;
    };
    const executor = new Executor({ store, queue: h.queue, provider: h.ebs, clock: h.clock, metrics: h.metrics, log: silentLog, config: { rateWaitMaxMs: 0, concurrentEnvironments: 1 } });
    await executor.run(h.batchOf(h.op('create-volume', volumeKey('a'))));
    expect(h.ebs.calls.CreateVolume ?? 0).toBe(0);
    const resent = h.queue.pending().map((p) => p.message);
    expect(resent).toEqual([expect.objectContaining({ op: 'create-volume', key: volumeKey('a') })]);
    expect(resent[0]).not.toHaveProperty('tokenAt');
    await h.store.release(volumeKey('a'), 'other-invocation');
    await h.clock.advance(60_000);
    await h.drain();
    expect(h.ebs.calls.CreateVolume).toBe(1);
    expect((await volumeOf(h, 'a')).status.state).toBe('creating');
  });

  it("is given back to that share, so the next DeleteVolume is made at once", async () => {
    const h = harness({ config: { rateBudgets: ONE_DELETE } });
    await dyingVolumes(h, ['v1', 'v2']);

    claimedByAnotherAfterRead(h, 'v1');
    await h.executor.run(h.batchOf(h.op('delete-volume', volumeKey('v1'))));
    expect(h.ebs.calls.DeleteVolume ?? 0).toBe(0);

    await h.executor.run(h.batchOf(h.op('delete-volume', volumeKey('v2'))));
    expect(h.ebs.calls.DeleteVolume).toBe(1);
    expect((await volumeOf(h, 'v2')).status.state).toBe('deleting');
  });
});
