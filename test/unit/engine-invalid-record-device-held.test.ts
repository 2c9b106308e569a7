/**
 * A device name an attachment record of the instance holds is not handed out to another attach,
 * also when that record does not parse (written straight into the table): the name may be in use.
 */
import { describe, expect, it } from 'vitest';
import { attachmentKey, harness, newAttachment, newVolume, settleAll } from './engine-fixtures.js';

describe('an attachment record of the instance that does not parse, holding a device name', () => {
  it('keeps that name from the next attach to the instance', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await settleAll(h, 3);
    h.store.putRaw({ ...newAttachment('data-0'), device: '/dev/sdf', status: { state: 'no-such-state', attempts: 0, updatedAt: new Date(h.clock.now()).toISOString() } } as never);
    await h.store.create(newAttachment('data-1'));
    h.queue.purge();

    await h.executor.run(h.batchOf(h.op('attach', attachmentKey('data-1'))));

    expect(await h.store.get(attachmentKey('data-1'))).toMatchObject({ device: '/dev/sdg', status: { state: 'attaching' } });
  });
});
