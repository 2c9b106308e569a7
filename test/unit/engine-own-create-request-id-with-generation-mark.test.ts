/**
 * A volume record's recorded CreateVolume request is its own when its token is the one the record
 * makes for itself (`ownCreateRequest`), whatever its id holds: an id that itself reads like a
 * generation mark (`db-g2`) is no exception, and the generation is the token's last one.
 */
import { describe, expect, it } from 'vitest';
import { createVolumeClientToken, ownCreateRequest } from '../../lib/engine/execution/ownership.js';

const CREATED_AT = '2026-01-01T00:00:00.000Z';

describe("a record's own CreateVolume request", () => {
  it.each(['db-g2', 'v-g10-g3'])('is recognised for id %s at generation 7', (volumeId) => {
    const clientToken = createVolumeClientToken(volumeId, CREATED_AT, 7);
    expect(ownCreateRequest({ volumeId, createdAt: CREATED_AT, createRequest: { clientToken, availabilityZone: 'eu-west-1a', spec: { sizeGiB: 10, volumeType: 'gp3' } } })).toBe(true);
  });

  it("is not another incarnation's (same id, another creation time)", () => {
    const clientToken = createVolumeClientToken('db-g2', CREATED_AT, 7);
    expect(ownCreateRequest({ volumeId: 'db-g2', createdAt: '2026-01-02T00:00:00.000Z', createRequest: { clientToken, availabilityZone: 'eu-west-1a', spec: { sizeGiB: 10, volumeType: 'gp3' } } })).toBe(false);
  });
});
