/**
 * The executor writes a result only while its claim still holds when it writes, not merely when
 * the batch started: a call that outlasts the claim's lease (`claimLeaseMs`) may have been taken
 * over by another invocation, so its result is not written.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_ENGINE_CONFIG } from '../../lib/engine/config.js';
import { Executor } from '../../lib/engine/executor.js';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { silentLog } from '../../lib/memory/index.js';
import { harness, newVolume, providerOver, settleAll, volumeKey, volumeOf } from './engine-fixtures.js';

describe('a result written after the claim has lapsed', () => {
  it('is refused: the record stays as it was read, whatever EC2 answered', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await settleAll(h);
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'dying' });
    const before = await volumeOf(h);
    expect(before.status.state).toBe('available');

    const provider = providerOver(h.ebs, {
      deleteVolume: async (id) => {
        await h.ebs.deleteVolume(id);
        // EC2 answers after the claim's lease has run out.
        await h.clock.advance(DEFAULT_ENGINE_CONFIG.claimLeaseMs + 1000);
      },
    });
    const slow = new Executor({ store: h.store, queue: h.queue, provider, clock: h.clock, metrics: h.metrics, log: silentLog, config: { rateWaitMaxMs: 0 } });
    await slow.run(h.batchOf(h.op('delete-volume', volumeKey('data-1'))));
    expect(h.ebs.calls.DeleteVolume).toBe(1);
    const after = await volumeOf(h);
    expect(after.status).toEqual(before.status);
  });
});
