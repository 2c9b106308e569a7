/**
 * An attachment's check brings its volume record in line with what the batch's describe shows,
 * without the volume's own DescribeVolumes, only for a volume at rest; a dying volume only once
 * EC2 lists it available. Still attached elsewhere (to an instance no record knows, say), it
 * waits for its own check: the attachment's removal asks for that check.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord, VolumeRecord } from '../../lib/domain/records.js';
import { Executor } from '../../lib/engine/executor.js';
import { silentLog } from '../../lib/memory/index.js';
import { OTHER_INSTANCE, attachmentKey, harness, providerOver, volumeKey, volumeOf, attachData1 } from './engine-fixtures.js';

describe('executor: a dying attachment detached while its dying volume is attached elsewhere', () => {
  it('is removed, and the volume is left to its own check', async () => {
    const h = harness();
    await attachData1(h);
    const attached = (await h.store.get(attachmentKey('data-1'))) as AttachmentRecord;
    expect(attached.status.state).toBe('attached');
    expect((await volumeOf(h)).status.state).toBe('in-use');

    // Both dying; the attachment's detach under way.
    const now = new Date(h.clock.now()).toISOString();
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'dying' });
    await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { life: 'dying', status: { state: 'detaching', attempts: 0, updatedAt: now, operationStartedAt: now } });
    h.queue.receive(100).forEach((r) => h.queue.delete(r.receiptHandle));

    // EC2 lists the volume detached from this instance and attached to another one.
    const provider = providerOver(h.ebs, {
      describeVolumes: async (ids) =>
        (await h.ebs.describeVolumes(ids)).map((v) => ({ ...v, state: 'in-use' as const, attachments: [{ instanceId: OTHER_INSTANCE, state: 'attached' as const, device: '/dev/sdg' }] })),
    });
    const executor = new Executor({ store: h.store, queue: h.queue, provider, clock: h.clock, metrics: h.metrics, log: silentLog, config: { rateWaitMaxMs: 0 } });
    await h.clock.advance(30_000);
    await executor.run(h.batchOf(h.op('check-attachment', attachmentKey('data-1'))));

    expect(await h.store.get(attachmentKey('data-1'))).toBeUndefined();
    expect(h.queued().filter((m) => m.op === 'check-volume' && m.key === 'data-1')).toHaveLength(1);
  });
});
