/**
 * `failNext(action, error, times)` makes the next `times` calls of the action fail (its doc
 * comment): the one after them goes through.
 */
import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../lib/engine/ports.js';
import { FakeClock } from '../../lib/memory/clock.js';
import { MemoryEbs } from '../../lib/memory/ebs.js';

describe('MemoryEbs failNext with a count', () => {
  it('fails that many calls, then answers the next', async () => {
    const ebs = new MemoryEbs({ clock: new FakeClock(0), ownerTagValue: 'stack-a', availabilityZones: ['us-east-1a'] });
    ebs.failNext('DescribeVolumes', new ProviderError('transient', 'InternalError', 'boom'), 2);
    await expect(ebs.describeVolumes([])).rejects.toMatchObject({ code: 'InternalError' });
    await expect(ebs.describeVolumes([])).rejects.toMatchObject({ code: 'InternalError' });
    await expect(ebs.describeVolumes([])).resolves.toEqual([]);
  });
});
