/**
 * A volume whose DeleteVolume has finished is gone: the test set-up's `failVolume`, which throws for
 * a volume it does not hold, throws for it too and does not bring it back.
 */
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../lib/memory/clock.js';
import { MemoryEbs } from '../../lib/memory/ebs.js';
import { createOwnedVolume } from './memory-ebs-fixtures.js';

describe('MemoryEbs failVolume after a delete', () => {
  it('throws for a volume whose delete has finished, and it stays gone', async () => {
    const clock = new FakeClock(0);
    const ebs = new MemoryEbs({ clock, ownerTagValue: 'stack-a', availabilityZones: ['us-east-1a'] });
    const ebsVolumeId = await createOwnedVolume(ebs);
    await clock.advance(2_000);
    await ebs.deleteVolume(ebsVolumeId);
    await clock.advance(1_000);
    expect(() => ebs.failVolume(ebsVolumeId)).toThrow(`no volume ${ebsVolumeId}`);
    expect(ebs.volume(ebsVolumeId)).toBeUndefined();
  });
});
