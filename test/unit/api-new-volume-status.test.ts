/**
 * docs/api.md (Status): `message`, `code` and `nextAttemptAt` are there when relevant. A volume just
 * asked for has none of them: it is pending, no attempt failed and nothing holds its first back.
 */
import { describe, expect, it } from 'vitest';
import { serviceWorld } from './api-fixtures.js';

describe('the status of a new volume', () => {
  it('is pending at 0 attempts since its creation, with no message, code or next attempt time', async () => {
    const { clock, service } = serviceWorld();
    const created = await service.createVolume({ volumeId: 'data-01', spec: { sizeGiB: 20, volumeType: 'gp3', availabilityZone: 'us-east-1a' } });
    const now = new Date(clock.now()).toISOString();
    expect(created.value.status).toStrictEqual({ state: 'pending', attempts: 0, updatedAt: now });
    expect((await service.getVolume('data-01')).status).toStrictEqual({ state: 'pending', attempts: 0, updatedAt: now });
  });
});
