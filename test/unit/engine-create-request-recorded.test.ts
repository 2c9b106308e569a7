/**
 * A CreateVolume is recorded before it is sent: the request (its token, AZ and spec), the AZ the
 * volume is placed in and the generation it makes, so that a crash or a lost answer repeats the
 * same request. While EBS makes the volume, the status names it.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { AZ, harness, newVolume, volumeOf } from './engine-fixtures.js';

describe('a CreateVolume recorded before it is sent', () => {
  it('writes the request, the AZ and the generation before the call, then names the volume EBS is making', async () => {
    const h = harness({ ebsTimings: { create: 60_000 } });
    const writes: VolumeRecord[] = [];
    h.store.onChange((change) => {
      if (change.key.kind === 'volume' && change.newRecord) writes.push(change.newRecord as VolumeRecord);
    });
    await h.store.create(newVolume('data-1', {}, { availabilityZone: undefined, placementInstanceId: 'i-0123456789abcdef0' }));
    await h.watch();
    await h.drain();

    const first = writes.find((w) => w.createRequest !== undefined)!;
    // Written before EC2 answered: no EC2 id yet.
    expect(first.ebsVolumeId).toBeUndefined();
    expect(first).toMatchObject({ availabilityZone: AZ, observedGeneration: 1, createRequest: { availabilityZone: AZ, clientToken: expect.any(String) }, status: { state: 'creating' } });
    expect(h.createRequests.map((r) => r.clientToken)).toEqual([first.createRequest!.clientToken]);

    const creating = await volumeOf(h);
    expect(creating.status).toMatchObject({ state: 'creating', message: `creating ${creating.ebsVolumeId}` });
    expect(creating).toMatchObject({ availabilityZone: AZ, observedGeneration: 1 });
  });
});
