/**
 * A pending attachment that kept its device (an attach whose answer was lost) is checked, and EC2
 * shows it was not attached: its device is let go for an attach afresh. Its volume record is
 * brought in line beside (`volumeSeen`, written with the attachment's result) only when it says
 * another state than EC2 holds; one that already says the state EC2 holds is not written (what
 * else EC2 holds is left to the volume's own check), and no check of it is sent.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord, VolumeRecord } from '../../lib/domain/records.js';
import { attachmentKey, harness, newAttachment, newVolume, volumeKey, volumeOf } from './engine-fixtures.js';

const KEY = attachmentKey('data-1');

/** data-1 available in EC2, its volume record saying `recorded`, and an attachment to INSTANCE pending with /dev/sdf kept, never attached. */
async function pendingWithDeviceKept(recorded: 'available' | 'in-use') {
  const h = harness();
  await h.store.create(newVolume('data-1', {}, { tags: { team: 'data' } }));
  await h.watch();
  await h.settle(10_000);
  await h.watch();
  expect((await volumeOf(h)).status.state).toBe('available');
  if (recorded === 'in-use') await h.store.update<VolumeRecord>(volumeKey('data-1'), { status: { ...(await volumeOf(h)).status, state: 'in-use' } });
  const now = new Date(h.clock.now()).toISOString();
  await h.store.create(newAttachment('data-1', { device: '/dev/sdf', status: { state: 'pending', attempts: 1, updatedAt: now, operationStartedAt: now } }));
  h.changes.splice(0);
  h.queue.receive(100).forEach((r) => h.queue.delete(r.receiptHandle));
  await h.clock.advance(30_000);
  return h;
}

describe("executor: a pending attachment's check finding it not attached", () => {
  it('leaves a volume record that already says available as it is, its tag changed outside and all, and sends no check of it', async () => {
    const h = await pendingWithDeviceKept('available');
    const volume = await volumeOf(h);
    // What else EC2 holds is the volume's own check's to bring in line (the reconciler's, in time).
    await h.ebs.createTags(volume.ebsVolumeId!, { team: 'changed-outside' });

    expect((await h.executor.run(h.batchOf(h.op('check-attachment', KEY)))).failedMessageIds).toEqual([]);

    const attachment = (await h.store.get(KEY)) as AttachmentRecord;
    expect(attachment.status.state).toBe('pending');
    expect(attachment.device).toBeUndefined();
    expect(await volumeOf(h)).toEqual(volume);
    expect(h.queued().filter((q) => q.op === 'check-volume')).toEqual([]);
  });

  it('brings a volume record that still says in use to available in the same invocation (no check of it needed)', async () => {
    const h = await pendingWithDeviceKept('in-use');

    await h.executor.run(h.batchOf(h.op('check-attachment', KEY)));

    expect(((await h.store.get(KEY)) as AttachmentRecord).device).toBeUndefined();
    expect((await volumeOf(h)).status.state).toBe('available');
    expect(h.queued().filter((q) => q.op === 'check-volume')).toEqual([]);
  });
});
