/**
 * A step's duration given as a function (the simulation draws them) that comes out below zero
 * takes no time: the step is done at the call, and the step after it still takes its own full
 * duration from then.
 */
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../lib/memory/clock.js';
import { MemoryEbs } from '../../lib/memory/ebs.js';
import { createOwnedVolume } from './memory-ebs-fixtures.js';

describe('MemoryEbs with a duration below zero', () => {
  it('applies a modification at once and optimizes it for the whole optimize duration', async () => {
    const clock = new FakeClock(0);
    const ebs = new MemoryEbs({ clock, ownerTagValue: 'stack-a', availabilityZones: ['us-east-1a'], timings: { create: 0, modify: () => -10_000, optimize: 300_000 } });
    const ebsVolumeId = await createOwnedVolume(ebs);
    await ebs.modifyVolume({ ebsVolumeId, sizeGiB: 20 });
    expect(await ebs.describeVolumeModifications([ebsVolumeId])).toMatchObject([{ state: 'optimizing', targetSizeGiB: 20 }]);
    expect(ebs.volume(ebsVolumeId)?.sizeGiB).toBe(20);
    await clock.advance(299_999);
    expect(await ebs.describeVolumeModifications([ebsVolumeId])).toMatchObject([{ state: 'optimizing' }]);
    await clock.advance(1);
    expect(await ebs.describeVolumeModifications([ebsVolumeId])).toMatchObject([{ state: 'completed' }]);
  });
});
