/**
 * GET /volumes/{volumeId} answers with the EC2 id and AZ once known and with what EC2 reports
 * (`observed`, `observedGeneration`), as docs/api.md says; a PATCH's answer shows them too.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { GP3, serviceWorld } from './api-fixtures.js';

const key = { kind: 'volume' as const, volumeId: 'data-01' };
const OBSERVED = { sizeGiB: 20, volumeType: 'gp3' as const, iops: 3000, throughput: 125 };

describe('a volume EC2 has created, as the API shows it', () => {
  it('carries ebsVolumeId, availabilityZone, observed and observedGeneration', async () => {
    const { store, service } = serviceWorld();
    await service.createVolume({ volumeId: 'data-01', spec: GP3 });
    await store.update<VolumeRecord>(key, {
      status: { state: 'available', attempts: 0, updatedAt: '2026-01-01T00:00:00.000Z' },
      ebsVolumeId: 'vol-0123456789abcdef0',
      availabilityZone: 'us-east-1a',
      observed: OBSERVED,
      observedGeneration: 1,
    });
    expect(await service.getVolume('data-01')).toMatchObject({
      generation: 1,
      ebsVolumeId: 'vol-0123456789abcdef0',
      availabilityZone: 'us-east-1a',
      observed: OBSERVED,
      observedGeneration: 1,
    });
    // A change bumps the generation; observedGeneration stays until EC2 has done it.
    expect(await service.patchVolume('data-01', { sizeGiB: 40 })).toMatchObject({ generation: 2, observed: OBSERVED, observedGeneration: 1 });
  });
});
