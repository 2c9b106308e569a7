/**
 * `calls` counts every call of each EC2 action, successful or not (its doc comment): a call the
 * `beforeCall` hook refuses (the simulator's rate limits) counts like any other.
 */
import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../lib/engine/ports.js';
import { FakeClock } from '../../lib/memory/clock.js';
import { MemoryEbs } from '../../lib/memory/ebs.js';

describe('MemoryEbs call counts', () => {
  it('counts a call that beforeCall throttles', async () => {
    const ebs = new MemoryEbs({ clock: new FakeClock(0), ownerTagValue: 'stack-a', availabilityZones: ['us-east-1a'] });
    ebs.beforeCall = () => {
      throw new ProviderError('throttled', 'RequestLimitExceeded', 'Request limit exceeded.');
    };
    await expect(ebs.describeVolumes(['vol-00000000000000001'])).rejects.toMatchObject({ code: 'RequestLimitExceeded' });
    await expect(ebs.describeInstances(['i-0000000000000000a'])).rejects.toMatchObject({ code: 'RequestLimitExceeded' });
    expect(ebs.calls).toMatchObject({ DescribeVolumes: 1, DescribeInstances: 1, CreateVolume: 0 });
  });
});
