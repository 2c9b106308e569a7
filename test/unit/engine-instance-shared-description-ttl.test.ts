/**
 * A description of an instance taken from an attachment record another environment left is
 * reused only within `instanceCacheTtlMs` of when the instance was described, not of when this
 * environment took it up: past that, the instance is described from EC2.
 */
import { describe, expect, it } from 'vitest';
import { attachmentKey, AZ, harness, newAttachment, newVolume, settleAll } from './engine-fixtures.js';

describe("an instance's description taken from another environment's record", () => {
  it('is reused until it is instanceCacheTtlMs old, counted from when it was described', async () => {
    const h = harness({ config: { instanceCacheTtlMs: 60_000 } });
    for (const id of ['data-1', 'data-2', 'data-3']) await h.store.create(newVolume(id));
    await settleAll(h, 3);
    const now = h.clock.now();
    h.store.putRaw({ ...newAttachment('data-0'), device: '/dev/sdz', instanceSeen: { availabilityZone: AZ, state: 'running', otherDevices: [], describedAt: now - 50_000 } });
    const describedBefore = h.ebs.calls.DescribeInstances ?? 0;
    h.queue.purge();

    await h.store.create(newAttachment('data-1'));
    await h.executor.run(h.batchOf(h.op('attach', attachmentKey('data-1'))));
    expect(h.ebs.calls.DescribeInstances ?? 0).toBe(describedBefore);

    // 9 s later the description is 59 s old: still reused.
    await h.clock.advance(9_000);
    await h.store.create(newAttachment('data-2'));
    await h.executor.run(h.batchOf(h.op('attach', attachmentKey('data-2'))));
    expect(h.ebs.calls.DescribeInstances ?? 0).toBe(describedBefore);

    // 1 s later it is 60 s old: the instance is described again.
    await h.clock.advance(1_000);
    await h.store.create(newAttachment('data-3'));
    await h.executor.run(h.batchOf(h.op('attach', attachmentKey('data-3'))));
    expect(h.ebs.calls.DescribeInstances ?? 0).toBe(describedBefore + 1);
    expect(await h.store.get(attachmentKey('data-3'))).toMatchObject({ status: { state: 'attaching' }, instanceSeen: { describedAt: now + 10_000 } });
  });
});
