/**
 * EC2's CreateVolume is idempotent by client token: a repeat with the same token and any parameter
 * changed is refused with `IdempotentParameterMismatch` (Amazon EC2 API Reference, "Ensuring
 * idempotency"). The availability zone is one of those parameters.
 */
import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../lib/engine/ports.js';
import { FakeClock } from '../../lib/memory/clock.js';
import { MemoryEbs } from '../../lib/memory/ebs.js';
import { OWNERSHIP_TAGS } from '../../lib/settings.js';

describe('MemoryEbs CreateVolume repeated in another availability zone', () => {
  it('refuses the repeat as a mismatch and creates no second volume', async () => {
    const ebs = new MemoryEbs({ clock: new FakeClock(0), ownerTagValue: 'stack-a', availabilityZones: ['us-east-1a', 'us-east-1b'] });
    const request = (availabilityZone: string) => ({
      clientToken: 't1',
      availabilityZone,
      spec: { sizeGiB: 10, volumeType: 'gp3' as const },
      tags: { [OWNERSHIP_TAGS.owner]: 'stack-a', [OWNERSHIP_TAGS.record]: 't1' },
    });
    const first = await ebs.createVolume(request('us-east-1a'));
    const error = await ebs.createVolume(request('us-east-1b')).then(() => undefined, (caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ kind: 'idempotency-mismatch', code: 'IdempotentParameterMismatch' });
    expect(ebs.volumes().map((v) => [v.ebsVolumeId, v.availabilityZone])).toEqual([[first.ebsVolumeId, 'us-east-1a']]);
  });
});
