/**
 * An attachment waiting for its single-attach volume in use looks whether the volume is attached
 * to its own instance only when no other attachment record may hold it. One pending with a device
 * (its AttachVolume sent, its answer lost, a retry scheduled) may hold it: the new attachment waits
 * for the detach from that instance, with no look.
 */
import { describe, expect, it } from 'vitest';
import { attachmentKey, harness, newAttachment, newVolume, OTHER_INSTANCE } from './engine-fixtures.js';

describe('an attachment waiting for its volume in use beside an attach whose answer was lost', () => {
  it('waits for the detach from the other instance without looking at EC2', async () => {
    const h = harness();
    const at = new Date(h.clock.now()).toISOString();
    await h.store.create(newVolume('data-1', { ebsVolumeId: 'vol-0123456789abcdef0', availabilityZone: 'eu-west-1a', status: { state: 'in-use', attempts: 0, updatedAt: at } }));
    await h.store.create(
      newAttachment('data-1', {
        instanceId: OTHER_INSTANCE,
        device: '/dev/sdf',
        status: { state: 'pending', code: 'RequestTimeout', message: 'Request timed out', attempts: 1, updatedAt: at, operationStartedAt: at, nextAttemptAt: new Date(h.clock.now() + 60_000).toISOString() },
      }),
    );
    h.changes.splice(0);
    await h.store.create(newAttachment('data-1'));

    await h.watch();

    expect(h.queued()).toEqual([]);
    expect((await h.store.get(attachmentKey('data-1')))?.status).toMatchObject({ state: 'pending', message: 'waiting for volume data-1 to be detached from its other instance' });
  });
});
