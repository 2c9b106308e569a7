/**
 * docs/api.md, PATCH: `null` clears `iops` or `throughput` (a gp3 volume goes back to its
 * baseline), `null` removes every client tag as `{}` does, and until the volume is created `null`
 * clears one of the fields fixed at creation.
 */
import { describe, expect, it } from 'vitest';
import { apiHarness, GP3, INSTANCE_A } from './api-fixtures.js';

async function volumeWith(spec: object) {
  const api = apiHarness();
  const created = await api.call({ method: 'POST', url: '/volumes', json: { volumeId: 'data-01', spec: { ...GP3, ...spec } } });
  expect(created.statusCode).toBe(201);
  return api;
}

describe('PATCH /volumes/{volumeId} with null', () => {
  it('clears iops and throughput', async () => {
    const api = await volumeWith({ iops: 4000, throughput: 250 });
    const patched = await api.call({ method: 'PATCH', url: '/volumes/data-01', json: { iops: null, throughput: null } });
    expect(patched.statusCode).toBe(200);
    expect(patched.json).toMatchObject({ generation: 2, spec: GP3 });
    expect((patched.json as { spec: object }).spec).not.toHaveProperty('iops');
    expect((patched.json as { spec: object }).spec).not.toHaveProperty('throughput');
  });

  it('removes every client tag', async () => {
    const api = await volumeWith({ tags: { team: 'storage' } });
    const patched = await api.call({ method: 'PATCH', url: '/volumes/data-01', json: { tags: null } });
    expect(patched.statusCode).toBe(200);
    expect(patched.json).toMatchObject({ generation: 2 });
    expect((patched.json as { spec: { tags?: object } }).spec.tags ?? {}).toEqual({});
  });

  it('clears a field fixed at creation while no volume was created', async () => {
    const api = await volumeWith({ encrypted: true, kmsKeyId: 'alias/data' });
    const patched = await api.call({ method: 'PATCH', url: '/volumes/data-01', json: { kmsKeyId: null } });
    expect(patched.statusCode).toBe(200);
    expect(patched.json).toMatchObject({ generation: 2, spec: { encrypted: true } });
    expect((patched.json as { spec: object }).spec).not.toHaveProperty('kmsKeyId');
  });

  it.each([
    ['snapshotId', { snapshotId: 'snap-0123456789abcdef0' }],
    ['encrypted', { encrypted: true }],
    ['multiAttach', { volumeType: 'io2', iops: 3000, multiAttach: true }],
  ] as const)('clears %s while no volume was created', async (field, spec) => {
    const api = await volumeWith(spec);
    const patched = await api.call({ method: 'PATCH', url: '/volumes/data-01', json: { [field]: null } });
    expect(patched.statusCode).toBe(200);
    expect(patched.json).toMatchObject({ generation: 2 });
    expect((patched.json as { spec: object }).spec).not.toHaveProperty(field);
  });

  it('clears one placement field while the other places the volume', async () => {
    const api = await volumeWith({});
    const byInstance = await api.call({ method: 'PATCH', url: '/volumes/data-01', json: { availabilityZone: null, placementInstanceId: INSTANCE_A } });
    expect(byInstance.statusCode).toBe(200);
    expect(byInstance.json).toMatchObject({ generation: 2, spec: { placementInstanceId: INSTANCE_A } });
    expect((byInstance.json as { spec: object }).spec).not.toHaveProperty('availabilityZone');
    const byZone = await api.call({ method: 'PATCH', url: '/volumes/data-01', json: { placementInstanceId: null, availabilityZone: 'us-east-1b' } });
    expect(byZone.statusCode).toBe(200);
    expect(byZone.json).toMatchObject({ generation: 3, spec: { availabilityZone: 'us-east-1b' } });
    expect((byZone.json as { spec: object }).spec).not.toHaveProperty('placementInstanceId');
  });
});
