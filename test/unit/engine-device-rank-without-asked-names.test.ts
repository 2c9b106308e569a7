/**
 * An attach is ranked (`DeviceRequest.rank`) among the live attachments of its instance waiting
 * for the executor to name their device: one that asked for its own name (`requestedDevice`)
 * waits for none, and does not push the others' ranks down.
 */
import { describe, expect, it } from 'vitest';
import { attachmentKey, harness, newAttachment, newVolume, settleAll } from './engine-fixtures.js';

describe('the rank of an attach waiting for a device name', () => {
  it('leaves out an attachment that asked for its own name, sorting before it', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await settleAll(h, 3);
    // Sorted before data-1, pending, asking for /dev/sdh: no rank of its own, its name kept from others.
    h.store.putRaw({ ...newAttachment('data-0'), requestedDevice: '/dev/sdh' });
    await h.store.create(newAttachment('data-1'));
    h.queue.purge();
    await h.executor.run(h.batchOf(h.op('attach', attachmentKey('data-1'))));

    // The only one waiting for a name: rank 0, the first free name.
    expect(await h.store.get(attachmentKey('data-1'))).toMatchObject({ device: '/dev/sdf', status: { state: 'attaching' } });
  });
});
