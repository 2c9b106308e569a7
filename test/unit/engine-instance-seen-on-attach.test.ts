/**
 * The description of its instance an attach leaves on its record (`instanceSeen`): left for a
 * stopped instance as for a running one, and naming as `otherDevices` only the devices in the
 * instance's mappings that no attachment record held.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord } from '../../lib/domain/records.js';
import { attachmentKey, AZ, harness, INSTANCE, newAttachment, newVolume, settleAll } from './engine-fixtures.js';

async function attachmentOf(h: ReturnType<typeof harness>, volumeId: string): Promise<AttachmentRecord> {
  return (await h.store.get(attachmentKey(volumeId))) as AttachmentRecord;
}

describe("the instance's description an attach leaves on its record", () => {
  it('is left for a stopped instance', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await settleAll(h);
    h.ebs.setInstanceState(INSTANCE, 'stopped');
    await h.store.create(newAttachment('data-1'));
    await settleAll(h);
    expect(h.ebs.calls.AttachVolume).toBe(1);
    expect((await attachmentOf(h, 'data-1')).instanceSeen).toMatchObject({ availabilityZone: AZ, state: 'stopped' });
  });

  it("names as other devices none an attachment record holds", async () => {
    const h = harness({ config: { instanceCacheTtlMs: 60_000 } });
    for (const id of ['data-1', 'data-2']) await h.store.create(newVolume(id));
    await settleAll(h);
    await h.store.create(newAttachment('data-1'));
    await settleAll(h);
    expect(await attachmentOf(h, 'data-1')).toMatchObject({ device: '/dev/sdf', status: { state: 'attached' } });

    // Described afresh: EC2 lists data-1's /dev/sdf, which data-1's record holds.
    await h.clock.advance(61_000);
    const describedBefore = h.ebs.calls.DescribeInstances;
    await h.store.create(newAttachment('data-2'));
    await settleAll(h);
    expect(h.ebs.calls.DescribeInstances).toBe(describedBefore + 1);
    const second = await attachmentOf(h, 'data-2');
    expect(second).toMatchObject({ device: '/dev/sdg', status: { state: 'attached' } });
    expect(second.instanceSeen?.otherDevices).not.toContain('/dev/sdf');
  });
});

describe('attaches to one instance waiting for their device names', () => {
  it('are ranked by volume id, in whatever order the records are read', async () => {
    const h = harness();
    for (const id of ['data-a', 'data-b']) await h.store.create(newVolume(id));
    await settleAll(h);
    const read = h.store.attachmentsOfInstance.bind(h.store);
    h.store.attachmentsOfInstance = async (instanceId) => (await read(instanceId)).reverse();
    await h.store.create(newAttachment('data-b'));
    await h.store.create(newAttachment('data-a'));
    await h.executor.run(h.batchOf(h.op('attach', attachmentKey('data-b')), h.op('attach', attachmentKey('data-a'))));
    await settleAll(h);
    expect([(await attachmentOf(h, 'data-a')).device, (await attachmentOf(h, 'data-b')).device]).toEqual(['/dev/sdf', '/dev/sdg']);
  });
});
