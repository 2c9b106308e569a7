/**
 * A dying volume whose modification EC2 fails: its spec no longer matters, so the failure brings no
 * retry of the modification and no backoff holding back the delete. The record settles as EC2 holds
 * the volume, the failure counted.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_ENGINE_CONFIG } from '../../lib/engine/config.js';
import { Executor } from '../../lib/engine/executor.js';
import { silentLog } from '../../lib/memory/log.js';
import { iopsModification, providerOver, volumeKey, volumeOf } from './engine-fixtures.js';

const HOUR = 3_600_000;

describe('a check of a dying volume whose modification EC2 failed', () => {
  it('writes no retry or backoff of the modification', async () => {
    const h = await iopsModification({ modify: 2 * HOUR, optimize: 2 * HOUR });
    h.queue.receive(100).forEach((r) => h.queue.delete(r.receiptHandle));
    await h.store.update(volumeKey('data-1'), { life: 'dying' });
    const provider = providerOver(h.ebs, {
      describeVolumeModifications: async (ids) => (await h.ebs.describeVolumeModifications(ids)).map((m) => ({ ...m, state: 'failed' as const, statusMessage: 'failed' })),
    });
    const executor = new Executor({ store: h.store, queue: h.queue, provider, clock: h.clock, metrics: h.metrics, log: silentLog, config: { rateWaitMaxMs: 0 } });
    await h.clock.advance(DEFAULT_ENGINE_CONFIG.describeGraceMs + 60_000);
    await executor.run(h.batchOf(h.op('check-volume', volumeKey('data-1'))));

    const after = await volumeOf(h);
    expect(after.status.state).toBe('available');
    expect(after.status.nextAttemptAt).toBeUndefined();
    expect(after.status.code).toBeUndefined();
    expect(after.failedModifications).toMatchObject({ count: 1 });
  });
});
