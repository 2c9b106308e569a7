/**
 * A PATCH changing a field whose issue the spec already had: the issue is the change's own (the
 * patch does not leave that field as it is), so its message is not told as one from before.
 */
import { describe, expect, it } from 'vitest';
import { ApiProblem } from '../../lib/api/problem.js';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { serviceWorld } from './api-fixtures.js';

const MULTI_IO1 = { sizeGiB: 100, volumeType: 'io1' as const, iops: 1_000, multiAttach: true, availabilityZone: 'us-east-1a' };
const key = { kind: 'volume' as const, volumeId: 'data-01' };

describe('PATCH of the size of a multi-attach io1 volume whose spec was grown in the table', () => {
  it("is 400 with the size issue as the change's own, and writes nothing", async () => {
    const { store, service } = serviceWorld();
    await service.createVolume({ volumeId: 'data-01', spec: MULTI_IO1 });
    await store.update<VolumeRecord>(key, {
      createRequest: { clientToken: 'ebsp-data-01-g1', availabilityZone: 'us-east-1a', spec: MULTI_IO1 },
      status: { state: 'creating', attempts: 0, updatedAt: '2026-01-01T00:00:00.000Z' },
    });
    // A size written straight into the table: EBS does not resize a multi-attach io1 volume, so the spec already has that issue.
    await store.update<VolumeRecord>(key, { spec: { ...MULTI_IO1, sizeGiB: 200 } });
    const writes = store.writes;
    const refused = await service.patchVolume('data-01', { sizeGiB: 300 }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApiProblem);
    const problem = refused as ApiProblem;
    expect(problem.status).toBe(400);
    expect(problem.errors).toEqual([{ path: 'sizeGiB', message: 'the size of a multi-attach io1 volume cannot be changed' }]);
    expect(store.writes).toBe(writes);
  });
});
