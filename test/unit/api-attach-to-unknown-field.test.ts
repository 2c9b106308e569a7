/**
 * docs/api.md: unknown fields are a `400` (`validation-failed`) and change nothing; that holds for
 * the fields of `attachTo` in a create as for the body's own.
 */
import { describe, expect, it } from 'vitest';
import { apiHarness, GP3, INSTANCE_A } from './api-fixtures.js';

describe('POST /volumes with an unknown field in attachTo', () => {
  it('is refused, naming the field, and nothing is written', async () => {
    const api = apiHarness();
    const response = await api.call({ method: 'POST', url: '/volumes', json: { volumeId: 'data-01', spec: GP3, attachTo: { instanceId: INSTANCE_A, devise: '/dev/sdf' } } });
    expect(response.statusCode).toBe(400);
    expect(response.json).toMatchObject({
      type: 'urn:ebs-provisioner:problem:validation-failed',
      errors: [{ path: 'attachTo.devise', message: 'is not a known field' }],
    });
    expect(api.store.writes).toBe(0);
    expect(await api.store.get({ kind: 'volume', volumeId: 'data-01' })).toBeUndefined();
  });
});
