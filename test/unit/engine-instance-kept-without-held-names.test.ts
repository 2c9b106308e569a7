/**
 * An instance described from EC2 is kept for later batches without the device names its
 * attachment records hold: those come from the records each time, so a name an attachment let go
 * of since (detached, its record removed) is free again at once, as other environments see it.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord } from '../../lib/domain/records.js';
import { attachmentKey, AZ, harness, INSTANCE, newAttachment, newVolume, volumeKey, volumeOf } from './engine-fixtures.js';

async function attachmentOf(h: ReturnType<typeof harness>, volumeId: string): Promise<AttachmentRecord> {
  return (await h.store.get(attachmentKey(volumeId))) as AttachmentRecord;
}

describe('an instance described while an attachment held a device name there', () => {
  it('does not hold on to the name once that attachment is detached and removed', async () => {
    const h = harness({ config: { instanceCacheTtlMs: 120_000 } });
    for (const id of ['v0', 'a', 'b']) {
      await h.store.create(newVolume(id));
      await h.executor.run(h.batchOf(h.op('create-volume', volumeKey(id))));
    }
    await h.settle(30_000);
    const [first, second] = [h.environment(), h.environment()];
    await h.store.create(newAttachment('v0'));
    await first.run(h.batchOf(h.op('attach', attachmentKey('v0'))));
    await h.settle(20_000);
    expect(await attachmentOf(h, 'v0')).toMatchObject({ device: '/dev/sdf', status: { state: 'attached' } });

    // Once its first description has expired, the first environment describes the instance again (placing a volume by it): EC2 lists v0's /dev/sdf.
    await h.clock.advance(121_000);
    await h.store.create(newVolume('placed', {}, { availabilityZone: undefined, placementInstanceId: INSTANCE }));
    const describedBefore = h.ebs.calls.DescribeInstances;
    await first.run(h.batchOf(h.op('create-volume', volumeKey('placed'))));
    expect(h.ebs.calls.DescribeInstances).toBe(describedBefore + 1);
    expect((await volumeOf(h, 'placed')).availabilityZone).toBe(AZ);

    await h.store.update<AttachmentRecord>(attachmentKey('v0'), { life: 'dying' });
    await h.watch();
    await h.settle(30_000);
    expect(await h.store.get(attachmentKey('v0'))).toBeUndefined();

    // Within that description's lifetime, each environment attaches one volume at once.
    await h.store.create(newAttachment('a'));
    await h.store.create(newAttachment('b'));
    await Promise.all([first.run(h.batchOf(h.op('attach', attachmentKey('a')))), second.run(h.batchOf(h.op('attach', attachmentKey('b'))))]);
    await h.settle(30_000);
    expect([(await attachmentOf(h, 'a')).device, (await attachmentOf(h, 'b')).device]).toEqual(['/dev/sdf', '/dev/sdg']);
    for (const id of ['a', 'b']) expect((await attachmentOf(h, id)).status).toMatchObject({ state: 'attached', attempts: 0 });
  });
});
