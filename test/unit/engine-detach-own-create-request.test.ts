/**
 * A volume record that holds its own CreateVolume request (its token the record's own) names the
 * EC2 volume EC2 created for it: a detach of its attachment needs no describe to show that
 * (`volumeOwnership`), so DetachVolume is made even when the batch's DescribeVolumes (made for
 * other records) fails. A record holding another record's request (its item copied in the
 * table) is not taken at its word.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord, VolumeRecord } from '../../lib/domain/records.js';
import { ProviderError } from '../../lib/engine/ports.js';
import { attachData1, attachmentKey, harness, volumeKey, volumeOf } from './engine-fixtures.js';

const KEY = attachmentKey('data-1');
const DESCRIBE_DOWN = new ProviderError('transient', 'InternalError', 'EC2 had an internal error');

async function dyingAttachment() {
  const h = harness();
  await attachData1(h);
  const volume = await volumeOf(h);
  expect(volume).toMatchObject({ status: { state: 'in-use' }, createRequest: { clientToken: expect.any(String) } });
  await h.store.update<AttachmentRecord>(KEY, { life: 'dying' });
  h.queue.receive(100).forEach((r) => h.queue.delete(r.receiptHandle));
  return { h, volume };
}

describe("executor: a detach whose volume record holds its own CreateVolume request", () => {
  it('detaches though the DescribeVolumes of its batch (made for a check beside it) fails', async () => {
    const { h, volume } = await dyingAttachment();
    h.ebs.failNext('DescribeVolumes', DESCRIBE_DOWN);
    const describes = h.ebs.calls.DescribeVolumes;

    await h.executor.run(h.batchOf(h.op('detach', KEY), h.op('check-volume', volumeKey('data-1'))));

    expect(h.ebs.calls.DescribeVolumes).toBe(describes + 1);
    expect(h.ebs.calls.DetachVolume).toBe(1);
    expect(((await h.store.get(KEY)) as AttachmentRecord).status).toMatchObject({ state: 'detaching', attempts: 0 });
    expect(h.ebs.volume(volume.ebsVolumeId!)?.attachments).toEqual([expect.objectContaining({ state: 'detaching' })]);
  });

  it("holding another record's request instead: nothing is detached while the describe fails", async () => {
    const { h, volume } = await dyingAttachment();
    const copied = { ...volume.createRequest!, clientToken: volume.createRequest!.clientToken.replace('data-1', 'data-2') };
    h.store.putRaw({ ...volume, createRequest: copied } as VolumeRecord);
    h.ebs.failNext('DescribeVolumes', DESCRIBE_DOWN);

    await h.executor.run(h.batchOf(h.op('detach', KEY)));

    expect(h.ebs.calls.DetachVolume).toBe(0);
    expect(((await h.store.get(KEY)) as AttachmentRecord).status).toMatchObject({ state: 'attached', code: 'InternalError', attempts: 1 });
  });
});
