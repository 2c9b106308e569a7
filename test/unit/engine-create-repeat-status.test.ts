/**
 * A recorded CreateVolume whose answer never came is repeated as it was, under its token, when the
 * record is taken up again from a state other than `creating` (retried after an error, say): the
 * status says it is a repeat, and EC2 answers with the one volume the token made.
 */
import { describe, expect, it } from 'vitest';
import type { Status, VolumeRecord } from '../../lib/domain/records.js';
import { AZ, harness, newVolume, volumeOf } from './engine-fixtures.js';
import { OWNERSHIP_TAGS } from '../../lib/settings.js';

describe('a recorded CreateVolume taken up again after an error', () => {
  it('is repeated under its token, its status saying so, and the volume it made is learnt', async () => {
    const h = harness({ ebsTimings: { create: 5_000 } });
    const record = newVolume('data-1');
    const clientToken = 'ebsp-data-1-0123456789ab-g1';
    const made = await h.ebs.createVolume({
      clientToken,
      availabilityZone: AZ,
      spec: record.spec,
      tags: { [OWNERSHIP_TAGS.owner]: 'ebs-provisioner', [OWNERSHIP_TAGS.record]: 'data-1' },
    });
    const statuses: Status<string>[] = [];
    h.store.onChange((change) => {
      if (change.key.kind === 'volume' && change.newRecord) statuses.push((change.newRecord as VolumeRecord).status);
    });
    // Its CreateVolume recorded and sent, the answer lost, then given up on and retried: pending, the request kept.
    await h.store.create({ ...record, createRequest: { clientToken, availabilityZone: AZ, spec: record.spec }, availabilityZone: AZ, observedGeneration: 1 });
    await h.watch();
    await h.drain();

    expect(statuses).toContainEqual(expect.objectContaining({ state: 'creating', message: 'repeating an unanswered CreateVolume' }));
    expect(h.createRequests.map((r) => r.clientToken)).toEqual([clientToken]);
    await h.settle(10_000);
    await h.watch();
    expect(await volumeOf(h)).toMatchObject({ status: { state: 'available' }, ebsVolumeId: made.ebsVolumeId });
    expect(h.ebs.volumes()).toHaveLength(1);
  });
});
