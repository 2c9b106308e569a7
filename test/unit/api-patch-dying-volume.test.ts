/** A PATCH of a volume being deleted is a 409 saying so, whatever the change asks for, and writes nothing. */
import { describe, expect, it } from 'vitest';
import { ApiProblem } from '../../lib/api/problem.js';
import { GP3, serviceWorld } from './api-fixtures.js';

describe('PATCH of a volume being deleted', () => {
  it('is 409 naming the delete, for a valid change and for one that would be refused', async () => {
    const { store, service } = serviceWorld();
    await service.createVolume({ volumeId: 'data-01', spec: GP3 });
    await service.deleteVolume('data-01');
    for (const patch of [{ sizeGiB: 30 }, { sizeGiB: 10 }, { iops: 100 }]) {
      const writes = store.writes;
      const refused = await service.patchVolume('data-01', patch).catch((error: unknown) => error);
      expect(refused, JSON.stringify(patch)).toBeInstanceOf(ApiProblem);
      expect((refused as ApiProblem).status).toBe(409);
      expect((refused as ApiProblem).detail).toBe('volume data-01 is being deleted and can no longer change');
      expect(store.writes, JSON.stringify(patch)).toBe(writes);
    }
  });
});
