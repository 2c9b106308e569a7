/**
 * An executor environment reuses an instance it described (`instanceCacheTtlMs`), except for a
 * retried attach: the description it used may be what failed it, so its instance is described
 * afresh, even when the environment described it a moment ago and the instance's index does not
 * list the retried record yet (it lags a record's writes).
 */
import { describe, expect, it } from 'vitest';
import { attachmentKey, harness, newAttachment, threeVolumesDataOneAttached } from './engine-fixtures.js';

describe("a retried attach and its instance's description", () => {
  it('describes the instance again for the retry, while a first attach reuses the description', async () => {
    const h = harness();
    await threeVolumesDataOneAttached(h);

    // A first attach of the same instance: the description just made serves it.
    const described = h.ebs.calls.DescribeInstances ?? 0;
    await h.store.create(newAttachment('data-2'));
    await h.queue.send([{ message: h.op('attach', attachmentKey('data-2')), delaySeconds: 0 }]);
    await h.drain();
    expect((await h.store.get(attachmentKey('data-2')))!.status.state).toBe('attaching');
    expect(h.ebs.calls.DescribeInstances ?? 0).toBe(described);

    // The retry of an attach that failed once, its record not yet in the instance's index: the instance is described again.
    const read = h.store.attachmentsOfInstance.bind(h.store);
    h.store.attachmentsOfInstance = async (instanceId) => (await read(instanceId)).filter((a) => a.volumeId !== 'data-3');
    await h.store.create(newAttachment('data-3'));
    const now = new Date(h.clock.now()).toISOString();
    await h.store.update(attachmentKey('data-3'), { status: { state: 'pending', code: 'InternalError', message: 'EC2 failed', attempts: 1, updatedAt: now } });
    await h.queue.send([{ message: h.op('attach', attachmentKey('data-3')), delaySeconds: 0 }]);
    await h.drain();
    expect((await h.store.get(attachmentKey('data-3')))!.status.state).toBe('attaching');
    expect(h.ebs.calls.DescribeInstances ?? 0).toBe(described + 1);
  });
});
