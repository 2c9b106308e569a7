/**
 * An AttachVolume EC2 refuses for good (an invalid request) proves the volume was not attached:
 * the attachment ends in error without the device written before the call, so it is not taken
 * for one EC2 may have attached: nothing looks at it again, and deleted, it goes with no DetachVolume.
 */
import { describe, expect, it } from 'vitest';
import { Executor } from '../../lib/engine/executor.js';
import { ProviderError } from '../../lib/engine/ports.js';
import { silentLog } from '../../lib/memory/log.js';
import { attachmentKey, harness, newAttachment, newVolume, providerOver, settleAll } from './engine-fixtures.js';

describe('an AttachVolume refused for good', () => {
  it('leaves the attachment in error without its device; deleted, it goes with no DetachVolume', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await settleAll(h, 4);
    const provider = providerOver(h.ebs, {
      attachVolume: async () => {
        throw new ProviderError('invalid-request', 'InvalidParameterCombination', 'refused');
      },
    });
    const executor = new Executor({ store: h.store, queue: h.queue, provider, clock: h.clock, metrics: h.metrics, log: silentLog });
    await h.store.create(newAttachment('data-1'));
    await h.watch();
    h.queue.purge();
    await executor.run(h.batchOf(h.op('attach', attachmentKey('data-1'))));

    const failed = await h.store.get(attachmentKey('data-1'));
    expect(failed).toMatchObject({ status: { state: 'error', code: 'InvalidParameterCombination' } });
    expect(failed).not.toHaveProperty('device');
    // Nothing to look at again: EC2 did not attach it.
    expect(h.queued()).toEqual([]);

    await h.store.update(attachmentKey('data-1'), { life: 'dying' });
    await settleAll(h, 4);
    expect(await h.store.get(attachmentKey('data-1'))).toBeUndefined();
    expect(h.ebs.calls.DetachVolume ?? 0).toBe(0);
  });
});
