import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../lib/engine/ports.js';
import { FakeClock } from '../../lib/memory/clock.js';
import { MemoryEbs } from '../../lib/memory/ebs.js';
import { OWNERSHIP_TAGS } from '../../lib/settings.js';

describe('MemoryEbs: io1 and io2 without IOPS', () => {
  it('refuses the CreateVolume as missing a parameter EC2 requires (MissingParameter), creating nothing', async () => {
    const ebs = new MemoryEbs({ clock: new FakeClock(0), ownerTagValue: 'stack-a', availabilityZones: ['us-east-1a'] });
    for (const volumeType of ['io1', 'io2'] as const) {
      const error = await ebs
        .createVolume({ clientToken: volumeType, availabilityZone: 'us-east-1a', spec: { sizeGiB: 100, volumeType }, tags: { [OWNERSHIP_TAGS.owner]: 'stack-a' } })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ProviderError);
      expect(error).toMatchObject({ kind: 'invalid-request', code: 'MissingParameter', message: `The request must contain the parameter iops for ${volumeType} volumes.` });
    }
    expect(ebs.volumes()).toEqual([]);
  });
});
