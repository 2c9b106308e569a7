/**
 * An Elastic Volumes modification goes modifying → optimizing → completed (Amazon EBS User Guide,
 * "Monitor the progress of volume modifications"); the in-memory EBS gives each of its steps its own
 * duration, so optimizing lasts its whole duration from the end of modifying.
 */
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../lib/memory/clock.js';
import { MemoryEbs } from '../../lib/memory/ebs.js';
import { createOwnedVolume } from './memory-ebs-fixtures.js';

describe('MemoryEbs modification steps', () => {
  it('optimizes for the whole optimize duration after modifying ends, and only then completes', async () => {
    const clock = new FakeClock(0);
    const ebs = new MemoryEbs({ clock, ownerTagValue: 'stack-a', availabilityZones: ['us-east-1a'], timings: { create: 0, modify: 60_000, optimize: 300_000 } });
    const ebsVolumeId = await createOwnedVolume(ebs);
    await ebs.modifyVolume({ ebsVolumeId, sizeGiB: 20 });
    const state = async () => (await ebs.describeVolumeModifications([ebsVolumeId]))[0]?.state;
    await clock.advance(59_999);
    expect(await state()).toBe('modifying');
    await clock.advance(1);
    expect(await state()).toBe('optimizing');
    await clock.advance(299_999);
    expect(await state()).toBe('optimizing');
    await clock.advance(1);
    expect(await state()).toBe('completed');
  });
});
