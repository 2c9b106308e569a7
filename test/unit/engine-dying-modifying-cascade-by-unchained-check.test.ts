/**
 * A volume deleted while EC2 modifies it: the checks of its modification's chain go on while its
 * attachments detach (`chainAfterCascade`). A check of no chain (the one an attachment's change
 * sends) that makes an attachment set back to alive dying again starts no chain of its own: the
 * modification's chain is still on its way, and one chain of checks is enough to see its end.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord, VolumeRecord } from '../../lib/domain/records.js';
import { attachmentKey, attachData1, harness, volumeKey, volumeOf } from './engine-fixtures.js';

const KEY = volumeKey('data-1');
const MINUTE = 60_000;

describe('a check of no chain making a dying volume\'s attachment dying again', () => {
  it('leaves the modification\'s own chain as the only one', async () => {
    const h = harness({ ebsTimings: { modify: 20 * MINUTE, optimize: 1000 } });
    await attachData1(h);
    const { ebsVolumeId, spec } = await volumeOf(h);
    await h.store.update<VolumeRecord>(KEY, { spec: { ...spec, iops: 4000 }, generation: 2 });
    await h.watch();
    await h.settle(20_000);
    expect((await volumeOf(h)).status.state).toBe('modifying');

    await h.store.update<VolumeRecord>(KEY, { life: 'dying' });
    await h.watch();
    expect((await h.store.get(attachmentKey('data-1')))?.life).toBe('dying');
    h.changes.length = 0;

    // Set back to alive in the table; a plain check of the volume (no chain) comes first.
    await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { life: 'alive' });
    const checks = () => h.queue.pending().filter((p) => p.message.op === 'check-volume' && p.message.key.volumeId === 'data-1');
    expect(checks()).toHaveLength(1);
    const chainCheck = checks()[0]!.message;
    expect(chainCheck.chainOf).toBeDefined();
    await h.executor.run(h.batchOf({ op: 'check-volume', key: KEY, reason: 'attachment changed' }));
    expect((await h.store.get(attachmentKey('data-1')))?.life).toBe('dying');
    expect(checks()).toHaveLength(1);
    expect(checks()[0]!.message).toEqual(chainCheck);

    // That chain alone sees the modification end; the volume is deleted once detached.
    for (let i = 0; i < 60 && (await h.store.get(KEY)); i++) {
      await h.watch();
      await h.settle(MINUTE, 5_000);
    }
    expect(await h.store.get(KEY)).toBeUndefined();
    expect(h.ebs.volume(ebsVolumeId!)).toBeUndefined();
  });
});
