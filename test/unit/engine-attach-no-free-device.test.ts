/**
 * An attach for which the instance has no free device name left is retried within its attempts
 * (docs/api.md: it ends in `error`, code `NoFreeDeviceName`, only once they are spent), so a name
 * freed meanwhile is taken by a retry.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord } from '../../lib/domain/records.js';
import { attachmentKey, harness, newAttachment, newVolume, settleAll } from './engine-fixtures.js';

describe('an attach with no free device name on its instance', () => {
  it('is retried, not failed, and attaches once a name is freed', async () => {
    const h = harness({ config: { deviceNames: ['/dev/sdf'] } });
    await h.store.create(newVolume('data-1'));
    await h.store.create(newVolume('data-2'));
    await h.store.create(newAttachment('data-1'));
    await settleAll(h);
    expect(await h.store.get(attachmentKey('data-1'))).toMatchObject({ status: { state: 'attached' }, device: '/dev/sdf' });

    await h.store.create(newAttachment('data-2'));
    await h.watch();
    await h.drain();
    const waiting = (await h.store.get(attachmentKey('data-2'))) as AttachmentRecord;
    expect(waiting.status).toMatchObject({ state: 'pending', code: 'NoFreeDeviceName', attempts: 1, nextAttemptAt: expect.any(String) });
    expect(h.ebs.calls.AttachVolume).toBe(1);

    await h.store.update(attachmentKey('data-1'), { life: 'dying' });
    await settleAll(h, 12);
    expect(await h.store.get(attachmentKey('data-1'))).toBeUndefined();
    expect(await h.store.get(attachmentKey('data-2'))).toMatchObject({ status: { state: 'attached' }, device: '/dev/sdf' });
  });
});
