/**
 * A progress check that finds another invocation's live claim on its record does not describe
 * beside it: it looks again when that claim ends, in whole seconds as SQS delays are, so a claim
 * ending within the second brings the check back a second later, never at once.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { iopsModification, volumeKey, volumeOf } from './engine-fixtures.js';

const KEY = volumeKey('data-1');

describe('a check reaching a record another invocation holds', () => {
  it.each([
    [1, 1],
    [999, 1],
    [1_000, 1],
    [5_400, 6],
  ])('a claim ending %i ms later: no DescribeVolumes, the check back %i s later', async (aheadMs, delaySeconds) => {
    const h = await iopsModification({ modify: 3_600_000, optimize: 3_600_000 });
    h.queue.receive(100).forEach((r) => h.queue.delete(r.receiptHandle));
    await h.store.update<VolumeRecord>(KEY, { claim: { owner: 'another-invocation', expiresAt: h.clock.now() + aheadMs } });
    const before = await volumeOf(h);
    const queued = h.queued().length;
    const describes = h.ebs.calls.DescribeVolumes;

    expect((await h.executor.run(h.batchOf(h.op('check-volume', KEY)))).failedMessageIds).toEqual([]);

    expect(h.ebs.calls.DescribeVolumes).toBe(describes);
    expect(h.queued().slice(queued)).toEqual([{ op: 'check-volume', key: 'data-1', delaySeconds }]);
    expect(await volumeOf(h)).toEqual(before);
    expect(h.metrics.operations.at(-1)).toMatchObject({ operation: 'check-volume', outcome: 'skipped' });
  });

  it('a claim that ended at this very millisecond holds nothing: the check describes now', async () => {
    const h = await iopsModification({ modify: 3_600_000, optimize: 3_600_000 });
    h.queue.receive(100).forEach((r) => h.queue.delete(r.receiptHandle));
    await h.store.update<VolumeRecord>(KEY, { claim: { owner: 'another-invocation', expiresAt: h.clock.now() } });
    const describes = h.ebs.calls.DescribeVolumes;

    await h.executor.run(h.batchOf(h.op('check-volume', KEY)));

    expect(h.ebs.calls.DescribeVolumes).toBe(describes + 1);
  });
});
