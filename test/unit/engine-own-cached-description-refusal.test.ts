/**
 * An attach judged on an instance description this environment took from EC2 itself, kept in its
 * cache, is refused for good when the instance is in another AZ (`InvalidVolume.ZoneMismatch`): only
 * a description taken from another environment's record is judged again on a fresh one first.
 */
import { describe, expect, it } from 'vitest';
import { attachmentKey, harness, newAttachment, newVolume, settleAll } from './engine-fixtures.js';

const ELSEWHERE = 'i-0aaaaaaaaaaaaaaa3';

describe("attaches to an instance in another AZ, judged on this environment's own description", () => {
  it('each ends in error, the second on the cached description without describing again', async () => {
    const h = harness();
    h.ebs.addInstance({ instanceId: ELSEWHERE, availabilityZone: 'eu-west-1b' });
    for (const id of ['data-1', 'data-2']) await h.store.create(newVolume(id));
    await settleAll(h, 3);
    h.queue.purge();
    const describedBefore = h.ebs.calls.DescribeInstances ?? 0;

    for (const id of ['data-1', 'data-2']) {
      await h.store.create(newAttachment(id, { instanceId: ELSEWHERE }));
      await h.executor.run(h.batchOf(h.op('attach', attachmentKey(id, ELSEWHERE))));
      expect(await h.store.get(attachmentKey(id, ELSEWHERE))).toMatchObject({ status: { state: 'error', code: 'InvalidVolume.ZoneMismatch' } });
    }
    expect((h.ebs.calls.DescribeInstances ?? 0) - describedBefore).toBe(1);
    expect(h.ebs.calls.AttachVolume ?? 0).toBe(0);
  });
});
