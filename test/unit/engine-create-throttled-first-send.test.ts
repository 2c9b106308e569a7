/**
 * A first CreateVolume that EC2 answers with RequestLimitExceeded keeps the request recorded before
 * it: the throttled call is made again as it was, under the same token (EC2 made nothing under it,
 * so sending the spec as it is then would be as safe; the recorded request is kept, as for any
 * answer that is no definite refusal). A throttle is no failed attempt.
 */
import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../lib/engine/ports.js';
import { harness, newVolume, volumeKey, volumeOf } from './engine-fixtures.js';

const KEY = volumeKey('data-1');

describe('a first CreateVolume throttled by EC2', () => {
  it('keeps its recorded request, and its next send repeats it under the same token', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    h.ebs.failNext('CreateVolume', new ProviderError('throttled', 'RequestLimitExceeded', 'Request limit exceeded.'));

    await h.executor.run(h.batchOf(h.op('create-volume', KEY)));

    expect(h.createRequests).toHaveLength(1);
    const throttled = await volumeOf(h);
    expect(throttled.createRequest).toEqual({ clientToken: h.createRequests[0]!.clientToken, availabilityZone: h.createRequests[0]!.availabilityZone, spec: h.createRequests[0]!.spec });
    expect(throttled.status).toMatchObject({ state: 'creating', attempts: 0 });
    expect(throttled.ebsVolumeId).toBeUndefined();

    await h.settle(120_000);

    expect(h.createRequests).toHaveLength(2);
    expect(h.createRequests[1]).toEqual(h.createRequests[0]);
    expect(await volumeOf(h)).toMatchObject({ status: { state: 'available' }, createRequest: throttled.createRequest });
    expect(h.ebs.volumes()).toHaveLength(1);
  });
});
