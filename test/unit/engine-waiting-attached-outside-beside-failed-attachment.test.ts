/**
 * A waiting attachment whose single-attach volume is attached in the console to the attachment's
 * own instance, while another attachment record of the volume failed before its AttachVolume was
 * sent (in error without a device): that one holds nothing, so the waiting one looks whether the
 * volume is attached here rather than wait for a detach no one makes.
 */
import { describe, expect, it } from 'vitest';
import { INSTANCE, OTHER_INSTANCE, attachmentKey, data1AttachedInConsole, data1Created, harness, newAttachment, volumeOf } from './engine-fixtures.js';

describe('a waiting attachment whose volume is attached outside the system to its instance, beside a failed attachment record', () => {
  it('looks, and is recorded attached with the device EC2 holds: the record in error without a device holds nothing', async () => {
    const h = harness();
    await data1Created(h);
    expect((await volumeOf(h)).status.state).toBe('available');
    const at = new Date(h.clock.now()).toISOString();
    // Refused before any device was allocated: its AttachVolume was never sent.
    await h.store.create(
      newAttachment('data-1', {
        instanceId: OTHER_INSTANCE,
        status: { state: 'error', code: 'InvalidInstanceID.NotFound', message: 'the instance does not exist', attempts: 1, updatedAt: at },
      }),
    );
    await h.store.create(newAttachment('data-1', { status: { state: 'pending', attempts: 0, updatedAt: at, message: 'waiting for volume data-1 to become available' } }));
    h.changes.splice(0);

    await data1AttachedInConsole(h);

    await h.watch();
    expect(h.queued()).toContainEqual({ op: 'check-attachment', key: `data-1/${INSTANCE}`, delaySeconds: 0 });
    await h.settle(10_000);
    await h.watch();
    expect(await h.store.get(attachmentKey('data-1'))).toMatchObject({ status: { state: 'attached' }, device: '/dev/sdz' });
    expect(h.ebs.calls.AttachVolume).toBe(1);
  });
});
