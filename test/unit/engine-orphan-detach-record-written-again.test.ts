/**
 * A dying attachment detaching the EC2 volumes found by their tags (its volume record removed),
 * whose attach did not record which volume record it was for (`volumeCreatedAt`, absent on records
 * from before it existed): a volume record written again under its id since the detach began is
 * told from the one it attached only by that time. Should EC2 still list the detached volume
 * attached past the describe grace, the record is not set back to `attached`, which would then
 * detach the new record's volume rather than the one found by its tags: it stays `detaching`.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord } from '../../lib/domain/records.js';
import { DEFAULT_ENGINE_CONFIG } from '../../lib/engine/config.js';
import { Executor } from '../../lib/engine/executor.js';
import { silentLog } from '../../lib/memory/index.js';
import { INSTANCE, attachmentKey, harness, newAttachment, newVolume, providerOver, volumeKey, volumeOf, attachmentOf } from './engine-fixtures.js';

const KEY = attachmentKey('data-1');

describe('executor: a detach by tags not taken, a volume record written again since it began', () => {
  it('stays detaching rather than attached, so the new record is not taken for the volume attached', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await h.store.create(newAttachment('data-1'));
    for (let i = 0; i < 3; i++) {
      await h.watch();
      await h.settle(30_000);
    }
    expect((await attachmentOf(h)).status.state).toBe('attached');
    const ebsVolumeId = (await volumeOf(h)).ebsVolumeId!;
    await h.store.remove(volumeKey('data-1'));
    // Attached before attachments recorded their volume record's creation time.
    await h.store.update<AttachmentRecord>(KEY, { life: 'dying', volumeCreatedAt: null });
    h.queue.receive(100).forEach((r) => h.queue.delete(r.receiptHandle));

    // EC2 accepts the DetachVolume and does not make it.
    const executor = new Executor({ store: h.store, queue: h.queue, provider: providerOver(h.ebs, { detachVolume: async () => undefined }), clock: h.clock, metrics: h.metrics, log: silentLog, config: { rateWaitMaxMs: 0 } });
    await executor.run(h.batchOf(h.op('detach', KEY)));
    const detaching = await attachmentOf(h);
    expect(detaching.status.state).toBe('detaching');

    // The volume record is written again under the same id after the detach began.
    await h.clock.advance(10_000);
    await h.store.create(newVolume('data-1', { createdAt: new Date(h.clock.now()).toISOString() }));

    await h.clock.advance(DEFAULT_ENGINE_CONFIG.describeGraceMs);
    await executor.run(h.batchOf(h.op('check-attachment', KEY)));
    const checked = await attachmentOf(h);
    expect(checked.status).toMatchObject({ state: 'detaching', attempts: detaching.status.attempts });
    expect(checked.status.code).toBeUndefined();
    expect(h.ebs.volume(ebsVolumeId)?.attachments).toEqual([expect.objectContaining({ instanceId: INSTANCE, state: 'attached' })]);
  });
});
