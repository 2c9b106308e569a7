/**
 * The detach of a dying attachment whose volume record was removed from the table finds the EC2
 * volumes by their tags. EC2 can still list an attachment it has finished detaching, in state
 * `detached`: that volume is attached to the instance no more, so no DetachVolume is sent for it
 * and the record goes, as when EC2 lists no attachment there at all.
 */
import { describe, expect, it } from 'vitest';
import { VolumeService } from '../../lib/api/service.js';
import { Executor } from '../../lib/engine/executor.js';
import { silentLog } from '../../lib/memory/index.js';
import { INSTANCE, attachedWithVolumeRecordRemoved, attachmentKey, harness, providerOver } from './engine-fixtures.js';

const KEY = attachmentKey('data-1');

describe('executor: a volume found by its tags that EC2 lists detached from the instance', () => {
  it('is not detached again: no DetachVolume, the dying attachment record is removed', async () => {
    const h = harness();
    const service = new VolumeService({ store: h.store, clock: h.clock });
    const ebsVolumeId = await attachedWithVolumeRecordRemoved(h);

    // Detached outside meanwhile; the search by tags still lists the attachment, as detached.
    await h.ebs.detachVolume({ ebsVolumeId, instanceId: INSTANCE });
    await h.clock.advance(60_000);
    const provider = providerOver(h.ebs, {
      findOwnedVolumes: async (recordVolumeId) =>
        (await h.ebs.findOwnedVolumes(recordVolumeId)).map((volume) => ({ ...volume, attachments: [{ instanceId: INSTANCE, device: '/dev/sdf', state: 'detached' as const }] })),
    });
    const executor = new Executor({ store: h.store, queue: h.queue, provider, clock: h.clock, metrics: h.metrics, log: silentLog, config: { rateWaitMaxMs: 0, concurrentEnvironments: 1 } });
    const detachesBefore = h.ebs.calls.DetachVolume;
    await service.deleteAttachment('data-1', INSTANCE);
    await h.watch();
    const received = h.queue.receive(100);
    expect(received.map((r) => r.message.op)).toContain('detach');
    await executor.run(received.map((r) => ({ messageId: r.messageId, message: r.message })));

    expect(h.ebs.calls.DetachVolume).toBe(detachesBefore);
    expect(await h.store.get(KEY)).toBeUndefined();
  });
});
