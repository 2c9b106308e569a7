/**
 * A describe may lag a DeleteVolume EC2 accepted: within the describe grace of the delete, a volume
 * EC2 still lists available is taken as being deleted (no failed attempt, no second DeleteVolume);
 * past it, the delete did not take (`VOLUME_NOT_DELETED_CODE`), a failed attempt made again after its backoff.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_ENGINE_CONFIG } from '../../lib/engine/config.js';
import { Executor } from '../../lib/engine/executor.js';
import { VOLUME_NOT_DELETED_CODE } from '../../lib/engine/status.js';
import { silentLog } from '../../lib/memory/log.js';
import { harness, newVolume, providerOver, volumeKey, volumeOf } from './engine-fixtures.js';

describe('a check of a deleting volume EC2 still lists available', () => {
  it('within the describe grace is still deleting; past it, the delete did not take', async () => {
    const h = harness({ ebsTimings: { delete: 10 * 60_000 } });
    await h.store.create(newVolume('data-1'));
    await h.executor.run(h.batchOf(h.op('create-volume', volumeKey('data-1'))));
    await h.settle(30_000);
    await h.store.update(volumeKey('data-1'), { life: 'dying' });
    await h.executor.run(h.batchOf(h.op('delete-volume', volumeKey('data-1'))));
    const deleting = await volumeOf(h);
    expect(deleting.status.state).toBe('deleting');
    const deletes = h.ebs.calls.DeleteVolume;

    // EC2's describe lags the delete: it lists the volume as it was.
    const provider = providerOver(h.ebs, {
      describeVolumes: async (ids) => (await h.ebs.describeVolumes(ids)).map((v) => ({ ...v, state: 'available' as const })),
    });
    const executor = new Executor({ store: h.store, queue: h.queue, provider, clock: h.clock, metrics: h.metrics, log: silentLog, config: { rateWaitMaxMs: 0 } });
    await h.clock.advance(DEFAULT_ENGINE_CONFIG.describeGraceMs - 1000);
    await executor.run(h.batchOf(h.op('check-volume', volumeKey('data-1'))));
    const looked = await volumeOf(h);
    expect(looked.status.state).toBe('deleting');
    expect(looked.status.code).toBeUndefined();
    expect(looked.status.attempts).toBe(deleting.status.attempts);
    expect(h.ebs.calls.DeleteVolume).toBe(deletes);

    await h.clock.advance(2000);
    await executor.run(h.batchOf(h.op('check-volume', volumeKey('data-1'))));
    expect((await volumeOf(h)).status).toMatchObject({ state: 'available', code: VOLUME_NOT_DELETED_CODE });
  });
});
