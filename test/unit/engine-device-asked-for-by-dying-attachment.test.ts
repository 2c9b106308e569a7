/**
 * A device name asked for (`requestedDevice`) is kept from other attaches to the instance only
 * while the attachment that asked is live: one its client deleted before it was attached holds no
 * device, and the name it asked for is free for the next attach.
 */
import { describe, expect, it } from 'vitest';
import { attachmentKey, harness, newAttachment, newVolume, settleAll } from './engine-fixtures.js';

describe('a device name asked for by an attachment deleted before it was attached', () => {
  it('is handed out to another attach to the instance', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await settleAll(h, 3);
    h.store.putRaw({ ...newAttachment('data-2'), life: 'dying', requestedDevice: '/dev/sdf' });
    await h.store.create(newAttachment('data-1'));
    h.queue.purge();
    await h.executor.run(h.batchOf(h.op('attach', attachmentKey('data-1'))));

    expect(await h.store.get(attachmentKey('data-1'))).toMatchObject({ device: '/dev/sdf', status: { state: 'attaching' } });
  });

  it('while that attachment is live, the next attach takes another name', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await settleAll(h, 3);
    h.store.putRaw({ ...newAttachment('data-2'), requestedDevice: '/dev/sdf' });
    await h.store.create(newAttachment('data-1'));
    h.queue.purge();
    await h.executor.run(h.batchOf(h.op('attach', attachmentKey('data-1'))));

    expect(await h.store.get(attachmentKey('data-1'))).toMatchObject({ device: '/dev/sdg', status: { state: 'attaching' } });
  });
});
