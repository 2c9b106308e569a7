/**
 * A volume record removed from the table has each attachment say what that leaves it, also when
 * the record was written again since, and when the stream brings the removal and the new insert in
 * one batch: a dying attachment detaches the volume tagged with the record's id.
 */
import { describe, expect, it } from 'vitest';
import type { RecordChange } from '../../lib/engine/watcher.js';
import { INSTANCE, attachData1, attachmentKey, harness, newVolume, volumeKey } from './engine-fixtures.js';
import { insert, remove } from './watcher-fixtures.js';

describe('a volume record removed and written again, both changes in one batch', () => {
  it('lets its dying attachment detach, beside the new record\'s creation', async () => {
    const h = harness();
    await attachData1(h);
    expect((await h.store.get(attachmentKey('data-1')))?.status.state).toBe('attached');
    h.queue.receive(100);
    const removed = await h.store.get(volumeKey('data-1'));
    await h.store.update(attachmentKey('data-1'), { life: 'dying' });
    await h.store.remove(volumeKey('data-1'));
    const fresh = newVolume('data-1', { createdAt: new Date(h.clock.now()).toISOString() });
    await h.store.create(fresh);
    const changes: RecordChange[] = [remove(removed!), insert(fresh, 'c2')];
    expect(await h.watcher.handle(changes)).toEqual({ failedChangeIds: [] });
    expect(h.queued()).toEqual([
      { op: 'detach', key: `data-1/${INSTANCE}`, delaySeconds: 0 },
      { op: 'create-volume', key: 'data-1', delaySeconds: 0 },
    ]);
  });
});
