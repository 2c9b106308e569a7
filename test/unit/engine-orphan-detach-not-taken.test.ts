/**
 * The detach of a dying attachment whose volume record was removed from the table finds the EC2
 * volumes by their tags. One EC2 accepted the DetachVolume for and still lists attached to the
 * instance once a describe no longer lags the call (describeGraceMs) was not detached: as for the
 * detach of a volume record's own volume, that is a failed attempt, and the volumes are detached
 * again after its backoff, not left `detaching` until the operation's age limit (6 hours).
 */
import { describe, expect, it } from 'vitest';
import { VolumeService } from '../../lib/api/service.js';
import { DEFAULT_ENGINE_CONFIG } from '../../lib/engine/config.js';
import type { AttachmentRecord } from '../../lib/domain/records.js';
import { Executor } from '../../lib/engine/executor.js';
import { silentLog } from '../../lib/memory/index.js';
import { INSTANCE, attachedWithVolumeRecordRemoved, attachmentKey, harness, providerOver } from './engine-fixtures.js';

const MINUTE = 60_000;
const KEY = attachmentKey('data-1');

describe('executor: a detach of the volumes found by their tags that EC2 accepted and did not make', () => {
  it('is a failed attempt once the describe grace ends; the volume is detached again after its backoff', async () => {
    const h = harness();
    const service = new VolumeService({ store: h.store, clock: h.clock });
    // The volume record is removed straight from the table, then the attachment deleted.
    const ebsVolumeId = await attachedWithVolumeRecordRemoved(h);

    // EC2 accepts the first DetachVolume and makes nothing of it.
    let detaches = 0;
    const provider = providerOver(h.ebs, {
      detachVolume: async (request) => {
        if (++detaches === 1) return;
        return h.ebs.detachVolume(request);
      },
    });
    const executor = new Executor({ store: h.store, queue: h.queue, provider, clock: h.clock, metrics: h.metrics, log: silentLog, random: () => 0.5, config: { rateWaitMaxMs: 0, concurrentEnvironments: 1 } });
    const drain = async () => {
      for (let round = 0; round < 20; round++) {
        const received = h.queue.receive(100);
        if (received.length === 0) return;
        await executor.run(received.map((r) => ({ messageId: r.messageId, message: r.message })));
        for (const r of received) h.queue.delete(r.receiptHandle);
      }
    };
    const run = async (ms: number) => {
      for (let spent = 0; spent < ms; spent += 1000) {
        await drain();
        await h.clock.advance(1000);
      }
      await drain();
    };
    await service.deleteAttachment('data-1', INSTANCE);
    await h.watch();
    await drain();
    expect(detaches).toBe(1);
    expect(((await h.store.get(KEY)) as AttachmentRecord).status.state).toBe('detaching');

    // Within the grace a describe may lag the detach: still detaching.
    await run(DEFAULT_ENGINE_CONFIG.describeGraceMs / 2);
    expect(((await h.store.get(KEY)) as AttachmentRecord).status.state).toBe('detaching');
    expect(detaches).toBe(1);

    // Past it: a failed attempt, and the detach is made again after its backoff; EC2 detaches the volume then.
    await run(DEFAULT_ENGINE_CONFIG.describeGraceMs);
    await run(2 * MINUTE);
    const written = h.changes.flatMap((change) => {
      const record = change.newRecord as AttachmentRecord | undefined;
      return record?.kind === 'attachment' ? [record.status] : [];
    });
    expect(written).toContainEqual(
      expect.objectContaining({ state: 'attached', code: 'AttachmentNotDetached', attempts: 1, message: `EC2 still lists ${ebsVolumeId} attached to ${INSTANCE} after the detach` }),
    );
    expect(detaches).toBe(2);
    expect(h.ebs.volume(ebsVolumeId)?.attachments).toEqual([]);
    expect(await h.store.get(KEY)).toBeUndefined();
  });
});
