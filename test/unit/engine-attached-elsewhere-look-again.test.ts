/**
 * An attach that did not take because EC2 shows the single-attach volume attached to another
 * instance waits for that instance to let go of it. A describe that lags a detach there and this
 * attach after it would leave it waiting while attached here, so the check looks once more when a
 * describe no longer lags the attach: at the end of the describe grace of the AttachVolume, not a
 * whole grace after the check.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord } from '../../lib/domain/records.js';
import { DEFAULT_ENGINE_CONFIG } from '../../lib/engine/config.js';
import { Executor } from '../../lib/engine/executor.js';
import { silentLog } from '../../lib/memory/index.js';
import { OTHER_INSTANCE, attachmentKey, data1Created, harness, newAttachment, providerOver, volumeOf } from './engine-fixtures.js';

const KEY = attachmentKey('data-1');

describe('executor: an attach that did not take, the volume attached to another instance outside the system', () => {
  it('waits, and its check looks once more at the end of the describe grace of the attach', async () => {
    const h = harness();
    await data1Created(h, 10_000);
    await h.drain();
    const { ebsVolumeId } = await volumeOf(h);
    // Attached to the other instance in the console.
    await h.ebs.attachVolume({ ebsVolumeId: ebsVolumeId!, instanceId: OTHER_INSTANCE, device: '/dev/sdk' });
    await h.clock.advance(10_000);

    // EC2 accepts the AttachVolume to this instance and makes nothing of it.
    const provider = providerOver(h.ebs, { attachVolume: async () => undefined });
    const executor = new Executor({ store: h.store, queue: h.queue, provider, clock: h.clock, metrics: h.metrics, log: silentLog, config: { rateWaitMaxMs: 0 } });
    await h.store.create(newAttachment('data-1'));
    await executor.run(h.batchOf(h.op('attach', KEY)));
    const attaching = (await h.store.get(KEY)) as AttachmentRecord;
    expect(attaching.status.state).toBe('attaching');
    const acceptedAt = Date.parse(attaching.status.operationStartedAt!);

    await h.clock.advance(20_000);
    const queued = h.queued().length;
    await h.executor.run(h.batchOf(h.op('check-attachment', KEY)));
    expect(((await h.store.get(KEY)) as AttachmentRecord).status.state).toBe('pending');
    const lookAgain = (acceptedAt + DEFAULT_ENGINE_CONFIG.describeGraceMs - h.clock.now()) / 1000;
    expect(h.queued().slice(queued).filter((q) => q.op === 'check-attachment')).toEqual([{ op: 'check-attachment', key: `data-1/${attaching.instanceId}`, delaySeconds: lookAgain }]);
  });
});
