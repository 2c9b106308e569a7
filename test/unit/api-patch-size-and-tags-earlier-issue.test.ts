/**
 * A PATCH changing the size and the tags together is a size change, not a tag-only one: it needs a
 * whole spec EBS can make, so an issue the spec already had on a field the patch leaves as it is
 * refuses it, said to be from before the change (docs/api.md, "a size, type, IOPS or throughput
 * change needs a whole spec EBS can make").
 */
import { describe, expect, it } from 'vitest';
import { ApiProblem } from '../../lib/api/problem.js';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { GP3, serviceWorld } from './api-fixtures.js';

const key = { kind: 'volume' as const, volumeId: 'data-01' };

describe('PATCH of the size and the tags of a volume whose spec names another AZ than its CreateVolume', () => {
  it('is 400 with the AZ issue said to be from before the change, and writes nothing', async () => {
    const { store, service } = serviceWorld();
    await service.createVolume({ volumeId: 'data-01', spec: GP3 });
    await store.update<VolumeRecord>(key, {
      createRequest: { clientToken: 'ebsp-data-01-g1', availabilityZone: 'us-east-1a', spec: GP3 },
      status: { state: 'creating', attempts: 0, updatedAt: '2026-01-01T00:00:00.000Z' },
    });
    // The spec's AZ written straight into the table once CreateVolume was asked for.
    await store.update<VolumeRecord>(key, { spec: { ...GP3, availabilityZone: 'us-east-1b' } });
    const writes = store.writes;
    const refused = await service.patchVolume('data-01', { sizeGiB: 40, tags: { team: 'storage' } }).catch((error: unknown) => error);
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

  it('takes the tags alone, judged on their own', async () => {
    const { store, service } = serviceWorld();
    await service.createVolume({ volumeId: 'data-01', spec: GP3 });
    await store.update<VolumeRecord>(key, {
      createRequest: { clientToken: 'ebsp-data-01-g1', availabilityZone: 'us-east-1a', spec: GP3 },
      status: { state: 'creating', attempts: 0, updatedAt: '2026-01-01T00:00:00.000Z' },
    });
    await store.update<VolumeRecord>(key, { spec: { ...GP3, availabilityZone: 'us-east-1b' } });
    const changed = await service.patchVolume('data-01', { tags: { team: 'storage' } });
    expect(changed.spec).toEqual({ ...GP3, availabilityZone: 'us-east-1b', tags: { team: 'storage' } });
  });
});
