/**
 * A modification EC2 lists takes the volume where a ModifyVolume request asks when it targets
 * every value the request sets; the values the request leaves out (EC2 lists a target for each)
 * do not matter.
 */
import { describe, expect, it } from 'vitest';
import { modificationReaches } from '../../lib/engine/planner.js';
import type { ProviderModification } from '../../lib/engine/ports.js';

const listed: ProviderModification = {
  ebsVolumeId: 'vol-1',
  state: 'optimizing',
  targetSizeGiB: 200,
  targetVolumeType: 'gp3',
  targetIops: 3000,
  targetThroughput: 125,
};

describe('modificationReaches', () => {
  it('reaches a request that sets the size alone, whatever IOPS and throughput EC2 targets', () => {
    expect(modificationReaches(listed, { ebsVolumeId: 'vol-1', sizeGiB: 200 })).toBe(true);
    expect(modificationReaches(listed, { ebsVolumeId: 'vol-1', sizeGiB: 300 })).toBe(false);
  });

  it('reaches a request that sets IOPS or throughput only when it targets that value', () => {
    expect(modificationReaches(listed, { ebsVolumeId: 'vol-1', iops: 3000 })).toBe(true);
    expect(modificationReaches(listed, { ebsVolumeId: 'vol-1', iops: 4000 })).toBe(false);
    expect(modificationReaches(listed, { ebsVolumeId: 'vol-1', throughput: 125 })).toBe(true);
    expect(modificationReaches(listed, { ebsVolumeId: 'vol-1', throughput: 250 })).toBe(false);
  });
});
