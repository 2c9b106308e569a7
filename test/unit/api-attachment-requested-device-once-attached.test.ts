/**
 * An attachment the client asked for with a device keeps that device as the one it was requested
 * as, also once EC2 has attached it under that name: a PUT asking for another is 409 naming the
 * device requested before, not one "chosen by the system" (the client chose it).
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord } from '../../lib/domain/records.js';
import { GP3, INSTANCE_A, problemOf, serviceWorld } from './api-fixtures.js';

const key = { kind: 'attachment' as const, volumeId: 'data-01', instanceId: INSTANCE_A };

describe('PUT of another device for an attachment requested with one and attached', () => {
  it('is 409 naming the device requested before, and writes nothing', async () => {
    const { store, clock, service } = serviceWorld();
    await service.createVolume({ volumeId: 'data-01', spec: GP3 });
    await service.putAttachment('data-01', INSTANCE_A, { device: '/dev/sdf' });
    await store.update<AttachmentRecord>(key, { status: { state: 'attached', attempts: 0, updatedAt: new Date(clock.now()).toISOString() }, device: '/dev/sdf' });
    const writes = store.writes;
    const problem = await problemOf(() => service.putAttachment('data-01', INSTANCE_A, { device: '/dev/sdg' }));
    expect(problem.status).toBe(409);
    expect(problem.detail).toBe(`the attachment of data-01 to ${INSTANCE_A} (attached) was requested as /dev/sdf; it cannot change to /dev/sdg: detach it first`);
    expect(problem.errors).toEqual([{ path: 'device', message: 'differs from /dev/sdf, the device requested before' }]);
    expect(store.writes).toBe(writes);
  });
});
