import { describe, expect, it } from 'vitest';
import { attachmentKey, harness, newAttachment, newVolume, volumeKey, volumeOf } from './engine-fixtures.js';

describe('Watcher: an attachment record removed straight from the table while its volume reads available', () => {
  it('sends a check of the volume: the record alone cannot say whether EC2 still holds it attached', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await h.watch();
    await h.settle(30_000);
    await h.watch();
    expect((await volumeOf(h)).status.state).toBe('available');
    await h.store.create(newAttachment('data-1'));
    h.changes.splice(0);
    expect(h.queue.pending()).toEqual([]);

    await h.store.remove(attachmentKey('data-1'));
    expect(await h.watcher.handle(h.changes.splice(0))).toEqual({ failedChangeIds: [] });
    expect(h.queue.pending().map((pending) => pending.message)).toEqual([expect.objectContaining({ op: 'check-volume', key: volumeKey('data-1') })]);
  });
});
