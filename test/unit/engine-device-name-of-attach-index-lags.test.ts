/**
 * Device names for attaches waiting on one instance are handed out by each attach's place among
 * the instance's attachment records waiting for a name, so environments naming different attaches
 * at once pick different names. An attach whose own record the instance's index does not list yet
 * (it lags a new record) comes after those it does list: it leaves them the names at their places.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord } from '../../lib/domain/records.js';
import { DEFAULT_DEVICE_NAMES } from '../../lib/engine/config.js';
import { attachmentKey, harness, INSTANCE, newAttachment, newVolume, settleAll } from './engine-fixtures.js';

describe("an attach whose record the instance's index does not list yet", () => {
  it('takes a name after the one left for the listed attachment waiting for its name', async () => {
    const h = harness();
    for (const id of ['data-1', 'data-2']) await h.store.create(newVolume(id));
    await settleAll(h);
    const read = h.store.attachmentsOfInstance.bind(h.store);
    h.store.attachmentsOfInstance = async (instanceId) => (await read(instanceId)).filter((a) => a.volumeId !== 'data-2');
    await h.store.create(newAttachment('data-1'));
    await h.store.create(newAttachment('data-2'));
    expect((await read(INSTANCE)).map((a) => a.volumeId)).toEqual(['data-1', 'data-2']);

    // data-2's attach handled first, data-1 still waiting for its name; then data-1's, the index caught up.
    await h.queue.send([{ message: h.op('attach', attachmentKey('data-2')), delaySeconds: 0 }]);
    await h.drain();
    const second = (await h.store.get(attachmentKey('data-2'))) as AttachmentRecord;
    expect(second.status.state).toBe('attaching');
    expect((await h.store.get(attachmentKey('data-1')))!.status.state).toBe('pending');
    h.store.attachmentsOfInstance = read;
    await h.queue.send([{ message: h.op('attach', attachmentKey('data-1')), delaySeconds: 0 }]);
    await h.drain();
    const first = (await h.store.get(attachmentKey('data-1'))) as AttachmentRecord;
    expect(first.status.state).toBe('attaching');

    const pool = DEFAULT_DEVICE_NAMES;
    expect(pool.indexOf(first.device!)).toBeGreaterThanOrEqual(0);
    expect(pool.indexOf(first.device!)).toBeLessThan(pool.indexOf(second.device!));
  });
});
