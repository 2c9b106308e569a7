/**
 * Of the descriptions of an instance left on its attachment records (`instanceSeen`), an attach
 * uses the most recent one still fresh: an older one no longer tells how the instance is.
 */
import { describe, expect, it } from 'vitest';
import { attachmentKey, AZ, harness, newAttachment, newVolume, settleAll } from './engine-fixtures.js';

describe("an instance's descriptions left on its attachment records", () => {
  it('the most recent one is used, not an older one', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await settleAll(h);
    const now = h.clock.now();
    const failed = { state: 'error', code: 'IncorrectInstanceState', attempts: 1, updatedAt: new Date(now).toISOString() } as const;
    // An older description naming an AZ the instance is not in, and a newer, right one.
    h.store.putRaw({ ...newAttachment('data-2'), status: failed, instanceSeen: { availabilityZone: 'eu-west-1b', state: 'running', otherDevices: [], describedAt: now - 2000 } });
    h.store.putRaw({ ...newAttachment('data-3'), status: failed, instanceSeen: { availabilityZone: AZ, state: 'running', otherDevices: [], describedAt: now - 1000 } });
    const describedBefore = h.ebs.calls.DescribeInstances ?? 0;

    await h.store.create(newAttachment('data-1'));
    await h.watch();
    await h.drain();

    expect(await h.store.get(attachmentKey('data-1'))).toMatchObject({ status: { state: 'attaching' }, instanceSeen: { availabilityZone: AZ, describedAt: now - 1000 } });
    expect(h.ebs.calls.DescribeInstances ?? 0).toBe(describedBefore);
    expect(h.ebs.calls.AttachVolume).toBe(1);
  });
});
