/**
 * An attachment removed from the table has its volume planned again. What that plan sends goes as
 * a look (`nudge`) only when it is no check: a retry of the volume's failed operation still waits
 * for its time. A check is sent as planned, not as a look (which schedules no checks of its own):
 * here that of a dying volume still in use, which waits for EC2 to report it detached.
 */
import { describe, expect, it } from 'vitest';
import { harness, newAttachment, newVolume } from './engine-fixtures.js';
import { remove } from './watcher-fixtures.js';

describe('the last attachment of a dying volume still in use removed from the table', () => {
  it('has the volume checked as planned, not looked at', async () => {
    const h = harness();
    const at = new Date(h.clock.now()).toISOString();
    await h.store.create(newVolume('data-1', { life: 'dying', ebsVolumeId: 'vol-0123456789abcdef0', status: { state: 'in-use', attempts: 0, updatedAt: at } }));
    h.changes.splice(0);

    expect(await h.watcher.handle([remove(newAttachment('data-1', { life: 'dying', status: { state: 'detached', attempts: 0, updatedAt: at } }))])).toEqual({ failedChangeIds: [] });

    const messages = h.queue.pending().map((pending) => pending.message);
    expect(messages).toEqual([expect.objectContaining({ op: 'check-volume', key: { kind: 'volume', volumeId: 'data-1' } })]);
    expect(messages[0]!.nudge).toBeUndefined();
  });
});
