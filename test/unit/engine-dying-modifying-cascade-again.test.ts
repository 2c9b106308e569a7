/**
 * A volume deleted while EC2 modifies it makes its attachments dying, and the checks of its
 * modification go on meanwhile (`chainAfterCascade`): they alone see it end. An attachment set back
 * to alive (straight in the table) before the next of those checks is made dying again by it, the
 * volume's status already saying what it waits for; the checks still go on, and the volume is
 * deleted once the modification and the detach are done. A check of no chain (the one an
 * attachment's change sends) that makes it dying again starts no chain of its own: the
 * modification's chain is still on its way, and one chain of checks is enough to see its end.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord, VolumeRecord } from '../../lib/domain/records.js';
import { attachmentKey, harness, volumeKey, volumeOf, attachData1 } from './engine-fixtures.js';

const KEY = volumeKey('data-1');
const MINUTE = 60_000;

/** data-1 attached, then modified (20 minutes in EC2), deleted while modifying, its attachment set back to alive in the table. */
async function dyingWhileModifyingAttachmentAliveAgain() {
  const h = harness({ ebsTimings: { modify: 20 * MINUTE, optimize: 1000 } });
  await attachData1(h);
  expect((await volumeOf(h)).status.state).toBe('in-use');
  const { ebsVolumeId, spec } = await volumeOf(h);
  await h.store.update<VolumeRecord>(KEY, { spec: { ...spec, iops: 4000 }, generation: 2 });
  await h.watch();
  await h.settle(20_000);
  expect((await volumeOf(h)).status.state).toBe('modifying');

  // Deleted: the watcher makes the attachment dying.
  await h.store.update<VolumeRecord>(KEY, { life: 'dying' });
  await h.watch();
  expect((await h.store.get(attachmentKey('data-1')))?.life).toBe('dying');
  const waiting = await volumeOf(h);
  expect(waiting.status.message).toMatch(/before deleting/);
  h.changes.length = 0;

  await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { life: 'alive' });
  const checks = () => h.queue.pending().filter((p) => p.message.op === 'check-volume' && p.message.key.volumeId === 'data-1');
  expect(checks()).toHaveLength(1);
  return { h, ebsVolumeId: ebsVolumeId!, waiting, checks };
}

/** The volume record goes, and its EC2 volume with it, once the modification and the detach are done. */
async function expectDeletedOnceDone(h: ReturnType<typeof harness>, ebsVolumeId: string) {
  for (let i = 0; i < 60 && (await h.store.get(KEY)); i++) {
    await h.watch();
    await h.settle(MINUTE, 5_000);
  }
  expect(await h.store.get(KEY)).toBeUndefined();
  expect(h.ebs.volume(ebsVolumeId)).toBeUndefined();
}

describe('executor: a dying volume under modification whose attachment is set back to alive', () => {
  it('makes it dying again and goes on checking the modification, then deletes the volume', async () => {
    const { h, ebsVolumeId, waiting, checks } = await dyingWhileModifyingAttachmentAliveAgain();
    // The modification's next check comes before the watcher reads that change.
    await h.clock.advance(checks()[0]!.visibleAt - h.clock.now());
    await h.drain();
    expect((await h.store.get(attachmentKey('data-1')))?.life).toBe('dying');
    expect((await volumeOf(h)).status).toEqual(waiting.status);
    expect(checks()).toHaveLength(1);

    await expectDeletedOnceDone(h, ebsVolumeId);
  });

  it("made dying again by a check of no chain, leaves the modification's own chain as the only one", async () => {
    const { h, ebsVolumeId, checks } = await dyingWhileModifyingAttachmentAliveAgain();
    const chainCheck = checks()[0]!.message;
    expect(chainCheck.chainOf).toBeDefined();
    // A plain check of the volume (no chain) comes first.
    await h.executor.run(h.batchOf({ op: 'check-volume', key: KEY, reason: 'attachment changed' }));
    expect((await h.store.get(attachmentKey('data-1')))?.life).toBe('dying');
    expect(checks()).toHaveLength(1);
    expect(checks()[0]!.message).toEqual(chainCheck);

    // That chain alone sees the modification end.
    await expectDeletedOnceDone(h, ebsVolumeId);
  });
});
