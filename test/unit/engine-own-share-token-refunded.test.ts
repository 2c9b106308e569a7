import { describe, expect, it } from 'vitest';
import type { RecordStore } from '../../lib/engine/ports.js';
import { Executor } from '../../lib/engine/executor.js';
import { silentLog } from '../../lib/memory/log.js';
import { harness, newVolume, volumeKey, volumeOf } from './engine-fixtures.js';

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
});
