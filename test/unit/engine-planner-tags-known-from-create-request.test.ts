/**
 * A volume record written before tags were observed still says which tags EC2 holds when it kept
 * its CreateVolume request: the tags it was created with. A spec changed back to what EC2 holds is
 * then taken as held with no look; only a record without that request is looked at first.
 */
import { describe, expect, it } from 'vitest';
import { planVolume } from '../../lib/engine/planner.js';
import { T, created, volume } from './planner-fixtures.js';

const NOW = Date.parse(T);
const spec = { sizeGiB: 10, volumeType: 'gp3' as const, availabilityZone: 'eu-west-1a', tags: { team: 'a' } };
const observedWithoutTags = { ...created, observed: { sizeGiB: 10, volumeType: 'gp3' as const } };

describe('planner: a spec change of a record whose observed tags are unknown', () => {
  it('takes the spec as held, with no look, when the CreateVolume request kept says which tags EC2 holds', () => {
    const createRequest = { clientToken: 'ebsp-t', availabilityZone: 'eu-west-1a', spec };
    const record = volume('available', { ...observedWithoutTags, createRequest, spec, generation: 2, observedGeneration: 1 });
    expect(planVolume(record, [], NOW)).toEqual({ type: 'none', reason: 'volume available; EC2 already holds the spec', observedGeneration: 2 });
  });

  it('looks first without that request', () => {
    const record = volume('available', { ...observedWithoutTags, spec, generation: 2, observedGeneration: 1 });
    expect(planVolume(record, [], NOW)).toEqual({ type: 'operation', op: 'check-volume', reason: 'spec changed; looking at the tags EC2 holds' });
  });
});
