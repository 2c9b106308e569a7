/**
 * A PATCH of the size of a volume whose spec already asks for another placement than the
 * CreateVolume sent (its spec written straight into the table since): the issue on the field the
 * patch leaves as it is says it was there before this change, not that this change asks for it.
 * A PATCH changing the size and the tags together is a size change too, not a tag-only one (it
 * needs a whole spec EBS can make: docs/api.md); the tags alone are judged on their own.
 */
import { describe, expect, it } from 'vitest';
import { ApiProblem } from '../../lib/api/problem.js';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { GP3, serviceWorld } from './api-fixtures.js';

const key = { kind: 'volume' as const, volumeId: 'data-01' };

/** data-01 whose CreateVolume was asked for in us-east-1a, its spec then written straight into the table for us-east-1b. */
async function specMovedAfterCreate() {
  const world = serviceWorld();
  await world.service.createVolume({ volumeId: 'data-01', spec: GP3 });
  await world.store.update<VolumeRecord>(key, {
    createRequest: { clientToken: 'ebsp-data-01-g1', availabilityZone: 'us-east-1a', spec: GP3 },
    status: { state: 'creating', attempts: 0, updatedAt: '2026-01-01T00:00:00.000Z' },
  });
  await world.store.update<VolumeRecord>(key, { spec: { ...GP3, availabilityZone: 'us-east-1b' } });
  return world;
}

describe('PATCH of a volume whose spec names another AZ than its CreateVolume', () => {
  it.each([
    ['the size', { sizeGiB: 40 }],
    ['the size and the tags', { sizeGiB: 40, tags: { team: 'storage' } }],
  ])('of %s is 400 saying the AZ issue was there before the change, which leaves the AZ as it is, and writes nothing', async (_, patch) => {
    const { store, service } = await specMovedAfterCreate();
    const writes = store.writes;
    const refused = await service.patchVolume('data-01', patch).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApiProblem);
    const problem = refused as ApiProblem;
    expect(problem.status).toBe(400);
    expect(problem.errors).toEqual([
      {
        path: 'availabilityZone',
        message:
          'is fixed when the volume is created (so before this change, which leaves availabilityZone as it is: a size, type, IOPS or throughput change is made only with a spec EBS can make as a whole)',
      },
    ]);
    expect(store.writes).toBe(writes);
    expect((await service.getVolume('data-01')).spec).toEqual({ ...GP3, availabilityZone: 'us-east-1b' });
  });

  it('of the tags alone is taken, judged on their own', async () => {
    const { service } = await specMovedAfterCreate();
    const changed = await service.patchVolume('data-01', { tags: { team: 'storage' } });
    expect(changed.spec).toEqual({ ...GP3, availabilityZone: 'us-east-1b', tags: { team: 'storage' } });
  });
});
