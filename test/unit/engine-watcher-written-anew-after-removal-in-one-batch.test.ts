/**
 * A record its client put whole into the table in the state of an operation under way gets a check
 * of its own, with its chain: no executor's operation runs on it yet. That holds when the stream
 * brings, in one batch, an earlier record under its id, the executor's writes to it, its removal
 * and the insert of the one as read: only the changes since the last insert count.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { harness, newVolume, volumeKey } from './engine-fixtures.js';

describe('a volume record removed and put whole into the table again, all in one batch', () => {
  it('gets a check of its own, not a look, when written in a state of an operation under way', async () => {
    const h = harness();
    const at = () => new Date(h.clock.now()).toISOString();
    await h.store.create(newVolume('data-1'));
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { status: { state: 'creating', attempts: 0, updatedAt: at(), operationStartedAt: at() } });
    await h.store.remove(volumeKey('data-1'));
    await h.clock.advance(1000);
    await h.store.create(
      newVolume('data-1', { createdAt: at(), ebsVolumeId: 'vol-0123456789abcdef0', status: { state: 'modifying', attempts: 0, updatedAt: at(), operationStartedAt: at() } }),
    );
    const batch = h.changes.splice(0);
    expect(batch.map((change) => change.eventName)).toEqual(['INSERT', 'MODIFY', 'REMOVE', 'INSERT']);

    expect(await h.watcher.handle(batch)).toEqual({ failedChangeIds: [] });

    const messages = h.queue.pending().map((pending) => pending.message);
    expect(messages).toEqual([expect.objectContaining({ op: 'check-volume', key: volumeKey('data-1') })]);
    expect(messages[0]!.nudge).toBeUndefined();
  });
});
