/**
 * An attachment its client deletes while its AttachVolume is on its way, which EC2 then refuses:
 * EC2 never attached the volume, so the attachment, dying and without a device, has nothing left
 * in EC2. It is removed at once (by a message sent with the refusal's write), with no DetachVolume,
 * rather than kept until a later message finds it.
 */
import { describe, expect, it } from 'vitest';
import { VolumeService } from '../../lib/api/service.js';
import { Executor } from '../../lib/engine/executor.js';
import { ProviderError } from '../../lib/engine/ports.js';
import { silentLog } from '../../lib/memory/log.js';
import { INSTANCE, attachmentKey, harness, newAttachment, newVolume, providerOver, volumeOf } from './engine-fixtures.js';

describe('executor: an attach EC2 refuses after its client deleted the attachment', () => {
  it('removes the attachment at once, with no DetachVolume', async () => {
    const h = harness();
    const service = new VolumeService({ store: h.store, clock: h.clock });
    await h.store.create(newVolume('data-1'));
    await h.watch();
    await h.settle(10_000);
    expect((await volumeOf(h)).status.state).toBe('available');
    await h.store.create(newAttachment('data-1'));

    let attaches = 0;
    const provider = providerOver(h.ebs, {
      attachVolume: async () => {
        attaches++;
        await service.deleteAttachment('data-1', INSTANCE);
        throw new ProviderError('device-in-use', 'InvalidParameterValue', 'Attachment point /dev/sdf is already in use');
      },
    });
    const executor = new Executor({ store: h.store, queue: h.queue, provider, clock: h.clock, metrics: h.metrics, log: silentLog, random: () => 0.5, config: { rateWaitMaxMs: 0, concurrentEnvironments: 1 } });
    await executor.run(h.batchOf(h.op('attach', attachmentKey('data-1'))));
    expect(attaches).toBe(1);
    expect(await h.store.get(attachmentKey('data-1'))).toMatchObject({ life: 'dying', status: { state: 'pending' } });
    expect(h.queued()).toContainEqual({ op: 'check-attachment', key: `data-1/${INSTANCE}`, delaySeconds: 0 });

    // The message sent with the write removes it; the watcher's own message (not delivered here) is not needed for that.
    h.changes.splice(0);
    await h.drain();
    expect(await h.store.get(attachmentKey('data-1'))).toBeUndefined();
    expect(attaches).toBe(1);
    expect(h.ebs.calls.DetachVolume).toBe(0);
  });
});
