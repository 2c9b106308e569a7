/**
 * The detach of a dying attachment whose volume record was removed from the table finds the EC2
 * volumes by their tags. One EC2 lists attaching to the instance once a describe no longer lags
 * the DetachVolume (detached and attached again outside) was not detached either, as one it still
 * lists attached: a failed attempt, detached again after its backoff, not left `detaching` until
 * the operation's age limit.
 */
import { describe, expect, it } from 'vitest';
import { VolumeService } from '../../lib/api/service.js';
import { DEFAULT_ENGINE_CONFIG } from '../../lib/engine/config.js';
import type { AttachmentRecord } from '../../lib/domain/records.js';
import { Executor } from '../../lib/engine/executor.js';
import { silentLog } from '../../lib/memory/index.js';
import { INSTANCE, attachedWithVolumeRecordRemoved, attachmentKey, harness, providerOver } from './engine-fixtures.js';

const KEY = attachmentKey('data-1');

describe('executor: a volume found by its tags that EC2 lists attaching again after the detach', () => {
  it('is a failed attempt of the detach once the describe grace ends', async () => {
    const h = harness();
    const service = new VolumeService({ store: h.store, clock: h.clock });
    const ebsVolumeId = await attachedWithVolumeRecordRemoved(h);

    // EC2 accepts the DetachVolume and makes nothing of it; its describes list the volume attaching to the instance.
    const provider = providerOver(h.ebs, {
      detachVolume: async () => undefined,
      findOwnedVolumes: async (recordVolumeId) =>
        (await h.ebs.findOwnedVolumes(recordVolumeId)).map((volume) => ({
          ...volume,
          attachments: volume.attachments.map((a) => (a.instanceId === INSTANCE ? { ...a, state: 'attaching' as const } : a)),
        })),
    });
    const executor = new Executor({ store: h.store, queue: h.queue, provider, clock: h.clock, metrics: h.metrics, log: silentLog, random: () => 0.5, config: { rateWaitMaxMs: 0, concurrentEnvironments: 1 } });
    await service.deleteAttachment('data-1', INSTANCE);
    await h.watch();
    for (const r of h.queue.receive(100)) {
      await executor.run([{ messageId: r.messageId, message: r.message }]);
      h.queue.delete(r.receiptHandle);
    }
    expect(((await h.store.get(KEY)) as AttachmentRecord).status.state).toBe('detaching');

    await h.clock.advance(DEFAULT_ENGINE_CONFIG.describeGraceMs + 1000);
    await executor.run(h.batchOf(h.op('check-attachment', KEY)));
    expect(((await h.store.get(KEY)) as AttachmentRecord).status).toMatchObject({
      state: 'attached',
      code: 'AttachmentNotDetached',
      attempts: 1,
      message: `EC2 still lists ${ebsVolumeId} attached to ${INSTANCE} after the detach`,
    });
  });
});
