/**
 * An attachment removed from the table changes nothing visible in its volume's record: a volume
 * in use or available (its plan nothing to do) is checked, so its state follows what EC2 holds.
 */
import { describe, expect, it } from 'vitest';
import { attachmentKey, harness, newAttachment, newVolume } from './engine-fixtures.js';

describe('an attachment removed from the table', () => {
  it('has its available volume checked', async () => {
    const h = harness();
    const at = new Date(h.clock.now()).toISOString();
    await h.store.create(
      newVolume('data-1', {
        ebsVolumeId: 'vol-0123456789abcdef0',
        availabilityZone: 'eu-west-1a',
        observed: { sizeGiB: 10, volumeType: 'gp3', tags: {} },
        observedGeneration: 1,
        status: { state: 'available', attempts: 0, updatedAt: at },
      }),
    );
    await h.store.create(newAttachment('data-1', { status: { state: 'pending', message: 'waiting for volume data-1 to become available', attempts: 0, updatedAt: at } }));
    h.changes.splice(0);
    await h.store.remove(attachmentKey('data-1'));

    await h.watch();

    expect(h.queue.pending().map((pending) => pending.message)).toEqual([
      { op: 'check-volume', key: { kind: 'volume', volumeId: 'data-1' }, reason: 'attachment removed' },
    ]);
  });
});
