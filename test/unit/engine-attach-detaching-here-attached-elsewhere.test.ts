/**
 * An attach that did not take past the describe grace, of a single-attach volume EC2 lists
 * detaching from this instance and attached to another: what holds the volume is the other
 * instance, so the failure says so (`AttachmentNotFound`, naming it), not that EC2 is detaching it
 * here (`AttachmentDetaching`, which is for a volume detaching here and held nowhere else).
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord } from '../../lib/domain/records.js';
import { DEFAULT_ENGINE_CONFIG } from '../../lib/engine/config.js';
import { Executor } from '../../lib/engine/executor.js';
import { silentLog } from '../../lib/memory/index.js';
import { INSTANCE, OTHER_INSTANCE, attachmentKey, data1Created, harness, newAttachment, providerOver, volumeOf } from './engine-fixtures.js';

const KEY = attachmentKey('data-1');

describe('executor: an attach not taken, the volume detaching here and attached to another instance', () => {
  it('is a failed attempt naming the other instance', async () => {
    const h = harness();
    await data1Created(h, 10_000);
    const volume = await volumeOf(h);
    expect(volume.status.state).toBe('available');
    const startedAt = new Date(h.clock.now()).toISOString();
    await h.store.create(
      newAttachment('data-1', {
        status: { state: 'attaching', attempts: 0, updatedAt: startedAt, operationStartedAt: startedAt },
        device: '/dev/sdf',
        volumeCreatedAt: volume.createdAt,
      }),
    );

    const provider = providerOver(h.ebs, {
      describeVolumes: async (ids) =>
        (await h.ebs.describeVolumes(ids)).map((v) => ({
          ...v,
          state: 'in-use' as const,
          attachments: [
            { instanceId: INSTANCE, state: 'detaching' as const, device: '/dev/sdf' },
            { instanceId: OTHER_INSTANCE, state: 'attached' as const, device: '/dev/sdg' },
          ],
        })),
    });
    const executor = new Executor({ store: h.store, queue: h.queue, provider, clock: h.clock, metrics: h.metrics, log: silentLog, config: { rateWaitMaxMs: 0 } });
    await h.clock.advance(DEFAULT_ENGINE_CONFIG.describeGraceMs + 1000);
    await executor.run(h.batchOf(h.op('check-attachment', KEY)));
    const checked = (await h.store.get(KEY)) as AttachmentRecord;
    expect(checked.status).toMatchObject({ code: 'AttachmentNotFound', attempts: 1 });
    expect(checked.status.message).toContain(`attached to ${OTHER_INSTANCE} instead`);
  });
});
