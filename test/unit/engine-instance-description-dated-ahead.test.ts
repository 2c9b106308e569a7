/**
 * A description of an instance left on an attachment record and dated ahead of now is used while
 * it is no further ahead than clocks may differ (`CLOCK_SKEW_MS`); one dated further ahead is none
 * the system made, and the instance is described from EC2.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord } from '../../lib/domain/records.js';
import { CLOCK_SKEW_MS } from '../../lib/engine/rejection.js';
import { attachmentKey, AZ, harness, newAttachment, newVolume, settleAll } from './engine-fixtures.js';

async function attachWithDescriptionAhead(aheadMs: number) {
  const h = harness();
  await h.store.create(newVolume('data-1'));
  await settleAll(h, 3);
  const now = h.clock.now();
  h.store.putRaw({ ...newAttachment('data-0'), device: '/dev/sdz', instanceSeen: { availabilityZone: AZ, state: 'running', otherDevices: [], describedAt: now + aheadMs } });
  const describedBefore = h.ebs.calls.DescribeInstances ?? 0;
  await h.store.create(newAttachment('data-1'));
  h.queue.purge();
  await h.executor.run(h.batchOf(h.op('attach', attachmentKey('data-1'))));
  expect(await h.store.get(attachmentKey('data-1'))).toMatchObject({ status: { state: 'attaching' } });
  const attachment = (await h.store.get(attachmentKey('data-1'))) as AttachmentRecord;
  return { now, described: (h.ebs.calls.DescribeInstances ?? 0) - describedBefore, describedAt: attachment.instanceSeen?.describedAt };
}

describe('a description of an instance on an attachment record, dated ahead of now', () => {
  it('exactly as far ahead as clocks may differ: used, no DescribeInstances', async () => {
    const { now, described, describedAt } = await attachWithDescriptionAhead(CLOCK_SKEW_MS);
    expect(described).toBe(0);
    // The attach passes on the description it used.
    expect(describedAt).toBe(now + CLOCK_SKEW_MS);
  });

  it('a millisecond further ahead: not used, the instance is described from EC2', async () => {
    const { now, described, describedAt } = await attachWithDescriptionAhead(CLOCK_SKEW_MS + 1);
    expect(described).toBe(1);
    expect(describedAt).toBe(now);
  });
});
