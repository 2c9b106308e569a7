import { describe, expect, it } from 'vitest';
import type { AttachmentRecord, VolumeRecord } from '../../lib/domain/records.js';
import { attachmentKey, harness, newAttachment, newVolume, settleAll, volumeKey } from './engine-fixtures.js';

describe('Watcher: an attachment removed while its volume waits for EC2\'s modification limit', () => {
  it('sends a check of the volume, which brings in-use in line, rather than the modification that waits', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await h.store.create(newAttachment('data-1'));
    await settleAll(h);
    expect(((await h.store.get(attachmentKey('data-1'))) as AttachmentRecord).status.state).toBe('attached');
    expect(((await h.store.get(volumeKey('data-1'))) as VolumeRecord).status.state).toBe('in-use');

    // EC2 counts four modifications of the volume within the last 24 hours, and its client asks for a fifth.
    const hour = 60 * 60 * 1000;
    const iso = (ms: number) => new Date(ms).toISOString();
    const now = h.clock.now();
    const volume = (await h.store.get(volumeKey('data-1'))) as VolumeRecord;
    await h.store.update<VolumeRecord>(volumeKey('data-1'), {
      earlierModificationStarts: [iso(now - 4 * hour), iso(now - 3 * hour), iso(now - 2 * hour)],
      lastModificationStartedAt: iso(now - hour),
      spec: { ...volume.spec, sizeGiB: 20 },
      generation: 2,
    });
    h.changes.splice(0);

    // Removed straight from the table: no detach by the system, so the volume's record still says in-use.
    await h.store.remove(attachmentKey('data-1'));
    expect(h.changes.map((change) => change.eventName)).toEqual(['REMOVE']);
    expect(await h.watcher.handle(h.changes.splice(0))).toEqual({ failedChangeIds: [] });
    expect(h.queue.pending().map((pending) => pending.message)).toEqual([expect.objectContaining({ op: 'check-volume', key: volumeKey('data-1') })]);
  });
});
