/**
 * If-Match on a volume whose record is not valid only because its spec is beyond the EBS limits,
 * when the request's body is refused: a change or a retry is refused for the record before If-Match
 * is evaluated, so the body keeps its 400; a delete marks such a volume, so its If-Match is evaluated first.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { apiHarness, type ApiHarness } from './api-fixtures.js';

interface Problem {
  detail: string;
  errors: Array<{ path: string; message: string }>;
}

describe('If-Match on a volume beyond the EBS limits whose body is refused', () => {
  let api: ApiHarness;

  beforeEach(() => {
    api = apiHarness();
    api.store.putRaw({ kind: 'volume', volumeId: 'huge-01', spec: { sizeGiB: 1_000_000, volumeType: 'gp3', availabilityZone: 'us-east-1a' }, life: 'alive', generation: 1 });
  });

  it('keeps the body its 400 on PATCH and retry, and changes nothing', async () => {
    const before = await api.store.get({ kind: 'volume', volumeId: 'huge-01' });
    for (const request of [
      { method: 'PATCH', url: '/volumes/huge-01', json: { sizeGiB: 'forty' } },
      { method: 'POST', url: '/volumes/huge-01/retry', json: { again: true } },
    ]) {
      const label = `${request.method} ${request.url}`;
      const response = await api.call({ ...request, headers: { 'If-Match': '"7.stale"' } });
      expect(response.statusCode, label).toBe(400);
      expect((response.json as Problem).errors.map((issue) => issue.path), label).toEqual([request.method === 'PATCH' ? 'sizeGiB' : 'again']);
    }
    expect(await api.store.get({ kind: 'volume', volumeId: 'huge-01' })).toEqual(before);
  });

  it('is 412 on DELETE, which marks such a volume, and changes nothing', async () => {
    const response = await api.call({ method: 'DELETE', url: '/volumes/huge-01', headers: { 'If-Match': '"7.stale"' }, json: { again: true } });
    expect(response.statusCode).toBe(412);
    expect(response.headers?.ETag).toBe('"1"');
    expect(await api.store.get({ kind: 'volume', volumeId: 'huge-01' })).toMatchObject({ life: 'alive' });
  });
});
