/**
 * A dying volume being modified, its attachment still detaching (the volume busy on its instance),
 * whose storage EC2 then reports failed (state `error`): the modification's check finds it in
 * error, and the volume, dying, waits for its attachment (its status says so) with no DeleteVolume
 * while EC2 still holds it attached; once the detach ends and the attachment goes, it is deleted.
 */
import { describe, expect, it } from 'vitest';
import { INSTANCE, attachmentKey, dyingWhileModifyingAndDetaching, volumeKey, volumeOf } from './engine-fixtures.js';

const MINUTE = 60_000;

describe('executor: a dying volume whose storage fails while its attachments still detach', () => {
  it('is in error and waits for its attachment, with no DeleteVolume; deleted once the attachment is gone', async () => {
    const { h, ebsVolumeId } = await dyingWhileModifyingAndDetaching();

    // Its storage fails; the modification's next check finds it.
    h.ebs.failVolume(ebsVolumeId);
    await h.settle(5 * MINUTE, 10_000);
    await h.watch();
    const failed = await volumeOf(h);
    expect(failed.status).toMatchObject({ state: 'error', code: 'VolumeError', message: 'waiting for 1 attachment(s) to detach before deleting' });
    expect(h.ebs.calls.DeleteVolume).toBe(0);
    await h.settle(30 * MINUTE, 10_000);
    await h.watch();
    expect(h.ebs.calls.DeleteVolume).toBe(0);

    // The volume let go on the instance: the detach ends, the attachment goes, the volume is deleted.
    await h.ebs.detachVolume({ ebsVolumeId, instanceId: INSTANCE, force: true });
    for (let i = 0; i < 6; i++) {
      await h.watch();
      await h.settle(5 * MINUTE, 10_000);
    }
    expect(await h.store.get(attachmentKey('data-1'))).toBeUndefined();
    expect(await h.store.get(volumeKey('data-1'))).toBeUndefined();
    expect(h.ebs.volume(ebsVolumeId)).toBeUndefined();
  });
});
