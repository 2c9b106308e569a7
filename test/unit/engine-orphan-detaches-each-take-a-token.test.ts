/**
 * The detach of an attachment whose volume record was removed detaches every EC2 volume tagged
 * with its volume id that is attached to its instance, each DetachVolume on a rate token of its
 * own: the token reserved for the operation serves its first call only. With none left for the
 * next, that call is not sent.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord } from '../../lib/domain/records.js';
import { DEFAULT_ENGINE_CONFIG } from '../../lib/engine/config.js';
import { Executor } from '../../lib/engine/executor.js';
import { silentLog } from '../../lib/memory/log.js';
import { attachmentKey, harness, INSTANCE, newAttachment, newVolume, settleAll, volumeKey } from './engine-fixtures.js';

describe('two EC2 volumes of a removed volume record attached to the instance of its attachment', () => {
  it.each([
    ['a token of the bucket for each, both DetachVolume calls are sent', 2, 2],
    ['one token of the bucket, one DetachVolume is sent', 1, 1],
  ])('with %s', async (_, burst, detaches) => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await h.store.create(newAttachment('data-1'));
    await settleAll(h, 4);
    expect(await h.store.get(attachmentKey('data-1'))).toMatchObject({ status: { state: 'attached' } });
    // A second EC2 volume carrying the same tags (a second CreateVolume of the record), attached to the instance outside the system.
    const second = await h.ebs.createVolume({ ...h.createRequests[0]!, clientToken: 'another-token' });
    await h.clock.advance(10_000);
    await h.ebs.attachVolume({ ebsVolumeId: second.ebsVolumeId, instanceId: INSTANCE, device: '/dev/sdk' });
    await h.clock.advance(10_000);
    await h.store.remove(volumeKey('data-1'));
    await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { life: 'dying' });
    h.changes.splice(0);
    h.queue.purge();
    // `burst` DetachVolume tokens, the next a minute away.
    const rateBudgets = { ...DEFAULT_ENGINE_CONFIG.rateBudgets, AttachVolume: { burst, ratePerSecond: 1 / 60 } };
    const executor = new Executor({ store: h.store, queue: h.queue, provider: h.ebs, clock: h.clock, metrics: h.metrics, log: silentLog, config: { rateWaitMaxMs: 0, concurrentEnvironments: 1, rateBudgets } });
    const detachesBefore = h.ebs.calls.DetachVolume ?? 0;

    await executor.run(h.batchOf(h.op('detach', attachmentKey('data-1'))));

    expect(h.ebs.calls.DetachVolume ?? 0).toBe(detachesBefore + detaches);
  });
});
