/** A create repeated under a volume's id, told how it differs from the volume there. */
import { describe, expect, it } from 'vitest';
import { ApiProblem } from '../../lib/api/problem.js';
import { INSTANCE_A, serviceWorld } from './api-fixtures.js';

describe('a repeated create placed by attachTo', () => {
  it('is 409 naming the AZ a volume placed by an AZ is in, and writes nothing', async () => {
    const { store, service } = serviceWorld();
    await service.createVolume({ volumeId: 'data-01', spec: { sizeGiB: 20, volumeType: 'gp3', availabilityZone: 'us-east-1a' } });
    const writes = store.writes;
    const refused = await service.createVolume({ volumeId: 'data-01', spec: { sizeGiB: 20, volumeType: 'gp3' }, attachTo: { instanceId: INSTANCE_A } }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApiProblem);
    const problem = refused as ApiProblem;
    expect(problem.status).toBe(409);
    expect(problem.errors).toEqual([{ path: 'attachTo.instanceId', message: `places the volume in the AZ of ${INSTANCE_A}, but the volume is placed in us-east-1a` }]);
    expect(store.writes).toBe(writes);
    expect(await store.attachmentsOfVolume('data-01')).toEqual([]);
  });
});
