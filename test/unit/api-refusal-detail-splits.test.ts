/**
 * A refusal's `detail` lists its issues after a colon, `REASON_SEPARATOR` between them: no issue a
 * request's spec is refused for holds it (a repeated create that differs, a change of a field fixed
 * at creation), so the list splits back into the issues `errors` gives.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { REASON_SEPARATOR } from '../../lib/domain/validation.js';
import { INSTANCE_A, INSTANCE_B, problemOf, serviceWorld } from './api-fixtures.js';

/** The issues `detail` lists after `prefix`, split at the separator. */
function listed(detail: string, prefix: string): string[] {
  expect(detail.startsWith(prefix)).toBe(true);
  return detail.slice(prefix.length).split(REASON_SEPARATOR);
}

const asIssues = (errors: readonly { path: string; message: string }[]) => errors.map((issue) => `${issue.path}: ${issue.message}`);

describe('the issues of a refused request, one line', () => {
  it('a repeated create placed by another instance and of another size: two issues', async () => {
    const { service } = serviceWorld();
    await service.createVolume({ volumeId: 'data-01', spec: { sizeGiB: 20, volumeType: 'gp3' }, attachTo: { instanceId: INSTANCE_A } });
    const problem = await problemOf(() => service.createVolume({ volumeId: 'data-01', spec: { sizeGiB: 30, volumeType: 'gp3' }, attachTo: { instanceId: INSTANCE_B } }));
    expect(problem.errors).toHaveLength(2);
    expect(listed(problem.detail, 'volume data-01 already exists and differs from this request: ')).toEqual(asIssues(problem.errors));
  });

  it('a change of two fields fixed at creation, of a volume EC2 created and of one whose CreateVolume was asked for: two issues each', async () => {
    const { store, service } = serviceWorld();
    await service.createVolume({ volumeId: 'data-01', spec: { sizeGiB: 20, volumeType: 'gp3', availabilityZone: 'us-east-1a' } });
    const key = { kind: 'volume' as const, volumeId: 'data-01' };
    await store.update<VolumeRecord>(key, { createRequest: { clientToken: 'ebsp-data-01-g1', availabilityZone: 'us-east-1a', spec: { sizeGiB: 20, volumeType: 'gp3' } } });
    const asked = await problemOf(() => service.patchVolume('data-01', { availabilityZone: 'us-east-1b', encrypted: true }));
    expect(asked.errors).toHaveLength(2);
    expect(listed(asked.detail, 'the change to volume data-01 is not allowed: ')).toEqual(asIssues(asked.errors));

    await store.update<VolumeRecord>(key, { ebsVolumeId: 'vol-0123456789abcdef0' });
    const created = await problemOf(() => service.patchVolume('data-01', { placementInstanceId: INSTANCE_A, encrypted: true }));
    expect(created.errors).toHaveLength(2);
    expect(listed(created.detail, 'the change to volume data-01 is not allowed: ')).toEqual(asIssues(created.errors));
  });
});
