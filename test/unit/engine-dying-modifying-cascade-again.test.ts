/**
 * A volume deleted while EC2 modifies it makes its attachments dying, and the checks of its
 * modification go on meanwhile: they alone see it end. An attachment set back to alive (straight in
 * the table) before the next of those checks is made dying again by it, the volume's status already
 * saying what it waits for; the checks still go on, and the volume is deleted once the modification and the
 * detach are done.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord, VolumeRecord } from '../../lib/domain/records.js';
import { attachmentKey, harness, volumeKey, volumeOf, attachData1 } from './engine-fixtures.js';

const KEY = volumeKey('data-1');
const MINUTE = 60_000;

describe('executor: a dying volume under modification whose attachment is set back to alive', () => {
  it('makes it dying again and goes on checking the modification, then deletes the volume', async () => {
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

    // Set back to alive in the table; the modification's next check comes before the watcher reads that change.
    await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { life: 'alive' });
    const checks = () => h.queue.pending().filter((p) => p.message.op === 'check-volume' && p.message.key.volumeId === 'data-1');
    expect(checks()).toHaveLength(1);
    await h.clock.advance(checks()[0]!.visibleAt - h.clock.now());
    await h.drain();
    expect((await h.store.get(attachmentKey('data-1')))?.life).toBe('dying');
    expect((await volumeOf(h)).status).toEqual(waiting.status);
    expect(checks()).toHaveLength(1);

    for (let i = 0; i < 60 && (await h.store.get(KEY)); i++) {
      await h.watch();
      await h.settle(MINUTE, 5_000);
    }
    expect(await h.store.get(KEY)).toBeUndefined();
    expect(h.ebs.volume(ebsVolumeId!)).toBeUndefined();
  });
});
