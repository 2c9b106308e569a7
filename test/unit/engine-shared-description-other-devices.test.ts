/**
 * A description of an instance left on an attachment record names the devices in use that no
 * record holds (`otherDevices`: the root volume, volumes attached outside the system). An attach
 * judged on it hands out none of them.
 */
import { describe, expect, it } from 'vitest';
import { attachmentKey, AZ, harness, newAttachment, newVolume, settleAll } from './engine-fixtures.js';

describe("an attach on another environment's description of the instance", () => {
  it('avoids the device names the description says are in use', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await settleAll(h, 3);
    const now = h.clock.now();
    h.store.putRaw({ ...newAttachment('data-0'), device: '/dev/sdz', instanceSeen: { availabilityZone: AZ, state: 'running', otherDevices: ['/dev/xvda', '/dev/sdf'], describedAt: now } });
    const describedBefore = h.ebs.calls.DescribeInstances ?? 0;
    await h.store.create(newAttachment('data-1'));
    h.queue.purge();

    await h.executor.run(h.batchOf(h.op('attach', attachmentKey('data-1'))));

    expect(h.ebs.calls.DescribeInstances ?? 0).toBe(describedBefore);
    expect(await h.store.get(attachmentKey('data-1'))).toMatchObject({ device: '/dev/sdg', status: { state: 'attaching' } });
  });
});
