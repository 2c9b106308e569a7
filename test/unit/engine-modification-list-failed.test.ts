/**
 * A modification step reads EC2's modifications of the volume (DescribeVolumesModifications)
 * before it acts: one under way is followed or waited for, and one whose ModifyVolume answer was
 * lost is looked for before the spec is taken as held. When that read fails, nothing is sent and
 * nothing is concluded: the step is a failed attempt, retried after its backoff.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { ProviderError } from '../../lib/engine/ports.js';
import { availableVolume, volumeKey, volumeOf } from './engine-fixtures.js';

const LIST_DOWN = new ProviderError('transient', 'InternalError', 'EC2 had an internal error');

describe('executor: a modification step whose DescribeVolumesModifications fails', () => {
  it('sends no ModifyVolume: a failed attempt, whose retry modifies the volume', async () => {
    const h = await availableVolume({});
    const volume = await volumeOf(h);
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { spec: { ...volume.spec, sizeGiB: 20 }, generation: 2 });
    h.ebs.failNext('DescribeVolumesModifications', LIST_DOWN);
    await h.executor.run(h.batchOf(h.op('modify-volume', volumeKey('data-1'))));

    expect(h.ebs.calls.ModifyVolume).toBe(0);
    const failed = await volumeOf(h);
    expect(failed.status).toMatchObject({ state: 'available', code: 'InternalError', attempts: 1, nextAttemptAt: expect.any(String) });
    expect(failed.modificationSentAt).toBeUndefined();
    expect(h.ebs.volume(volume.ebsVolumeId!)?.sizeGiB).toBe(10);

    await h.settle(120_000);
    await h.watch();
    expect(h.ebs.calls.ModifyVolume).toBe(1);
    expect(h.ebs.volume(volume.ebsVolumeId!)?.sizeGiB).toBe(20);
    expect(await volumeOf(h)).toMatchObject({ status: { state: 'available', attempts: 0 }, observed: { sizeGiB: 20 } });
  });

  it('does not take a lost ModifyVolume as answered: a failed attempt, whose retry finds the modification and records it', async () => {
    const h = await availableVolume({});
    const volume = await volumeOf(h);
    const sentAt = h.clock.now();
    // A ModifyVolume to 20 GiB sent and its answer lost (EC2 made it), before the record learnt of it.
    await h.ebs.modifyVolume({ ebsVolumeId: volume.ebsVolumeId!, sizeGiB: 20 });
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { spec: { ...volume.spec, sizeGiB: 20 }, generation: 2, modificationSentAt: new Date(sentAt).toISOString() });
    await h.clock.advance(5_000);
    h.ebs.failNext('DescribeVolumesModifications', LIST_DOWN);
    await h.executor.run(h.batchOf(h.op('modify-volume', volumeKey('data-1'))));

    const failed = await volumeOf(h);
    expect(failed.status).toMatchObject({ code: 'InternalError', attempts: 1, nextAttemptAt: expect.any(String) });
    expect(failed.modificationSentAt).toBe(new Date(sentAt).toISOString());
    expect(failed.observed?.sizeGiB).toBe(10);

    await h.settle(120_000);
    await h.watch();
    // Only the lost call: none sent again.
    expect(h.ebs.calls.ModifyVolume).toBe(1);
    const settled = await volumeOf(h);
    expect(settled).toMatchObject({ status: { state: 'available', attempts: 0 }, observed: { sizeGiB: 20 } });
    expect(settled.modificationSentAt).toBeUndefined();
    expect(settled.status.code).toBeUndefined();
  });
});
