/**
 * An operation's message that comes after another message started the operation is held back
 * until the operation's first progress check is due (its grid point): before then EC2 cannot
 * have finished. Delivered at that very point, it is due: it looks at EC2 now, with no further
 * wait sent.
 */
import { describe, expect, it } from 'vitest';
import { creatingData1, volumeKey } from './engine-fixtures.js';

const KEY = volumeKey('data-1');

describe("executor: the operation's own message once the operation has started", () => {
  it('delivered at its first check time: DescribeVolumes is made now, and no check is sent back for that time', async () => {
    const { h, firstCheckAt } = await creatingData1();
    await h.clock.advance(firstCheckAt - h.clock.now());
    const describes = h.ebs.calls.DescribeVolumes;
    const queued = h.queued().length;
    await h.executor.run(h.batchOf(h.op('create-volume', KEY)));
    expect(h.ebs.calls.DescribeVolumes).toBe(describes + 1);
    expect(h.queued().slice(queued).filter((q) => q.delaySeconds === 0)).toEqual([]);
  });

  it('a millisecond before it: no DescribeVolumes, a check comes back at that time', async () => {
    const { h, firstCheckAt } = await creatingData1();
    await h.clock.advance(firstCheckAt - 1 - h.clock.now());
    const describes = h.ebs.calls.DescribeVolumes;
    const queued = h.queued().length;
    await h.executor.run(h.batchOf(h.op('create-volume', KEY)));
    expect(h.ebs.calls.DescribeVolumes).toBe(describes);
    expect(h.queued().slice(queued)).toEqual([{ op: 'check-volume', key: 'data-1', delaySeconds: 0 }]);
  });
});
