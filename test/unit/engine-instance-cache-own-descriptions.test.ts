/**
 * The executor's instance cache holds what its environment described itself. A description taken
 * from an attachment record another environment left (`instanceSeen`) serves the batch that took
 * it, and later ones only while a record still carries it: once none does, the instance is
 * described from EC2, however fresh that description still is.
 */
import { describe, expect, it } from 'vitest';
import { attachmentKey, AZ, harness, newAttachment, newVolume, settleAll } from './engine-fixtures.js';

describe("a description of an instance taken from another environment's record", () => {
  it('is not kept in the cache: once no record carries it, the next attach describes the instance from EC2', async () => {
    const h = harness();
    for (const id of ['data-1', 'data-2']) await h.store.create(newVolume(id));
    await settleAll(h, 3);
    const sharedAt = h.clock.now() - 1000;
    // Another environment's record, with its description of the instance a second old.
    h.store.putRaw({ ...newAttachment('data-0'), device: '/dev/sdz', instanceSeen: { availabilityZone: AZ, state: 'running', otherDevices: [], describedAt: sharedAt } });
    h.changes.splice(0);
    h.queue.purge();
    const describedBefore = h.ebs.calls.DescribeInstances ?? 0;

    await h.store.create(newAttachment('data-1'));
    await h.executor.run(h.batchOf(h.op('attach', attachmentKey('data-1'))));
    expect(h.ebs.calls.DescribeInstances ?? 0).toBe(describedBefore);
    expect(await h.store.get(attachmentKey('data-1'))).toMatchObject({ status: { state: 'attaching' }, instanceSeen: { describedAt: sharedAt } });

    // Every record carrying that description goes: data-0 removed from the table, data-1 detached and removed.
    await h.store.remove(attachmentKey('data-0'));
    await h.store.update(attachmentKey('data-1'), { life: 'dying' });
    await settleAll(h, 3);
    expect(await h.store.get(attachmentKey('data-1'))).toBeUndefined();
    expect(h.ebs.calls.DescribeInstances ?? 0).toBe(describedBefore);

    // Well within the cache's hour: the instance is described all the same, by this environment.
    await h.store.create(newAttachment('data-2'));
    await h.executor.run(h.batchOf(h.op('attach', attachmentKey('data-2'))));
    expect(h.ebs.calls.DescribeInstances ?? 0).toBe(describedBefore + 1);
    expect(await h.store.get(attachmentKey('data-2'))).toMatchObject({ status: { state: 'attaching' }, instanceSeen: { describedAt: h.clock.now() } });
  });
});
