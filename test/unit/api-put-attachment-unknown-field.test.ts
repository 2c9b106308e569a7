/**
 * docs/api.md: unknown fields are a `400` (`validation-failed`) and change nothing; the attach
 * body takes `device` only.
 */
import { describe, expect, it } from 'vitest';
import { apiHarness, GP3, INSTANCE_A } from './api-fixtures.js';

describe('PUT of an attachment with an unknown field in its body', () => {
  it('is refused, naming the field, and no attachment is written', async () => {
    const api = apiHarness();
    await api.call({ method: 'POST', url: '/volumes', json: { volumeId: 'data-01', spec: GP3 } });
    const writes = api.store.writes;
    const response = await api.call({ method: 'PUT', url: `/volumes/data-01/attachments/${INSTANCE_A}`, json: { devices: '/dev/sdf' } });
    expect(response.statusCode).toBe(400);
    expect(response.json).toMatchObject({
      type: 'urn:ebs-provisioner:problem:validation-failed',
      errors: [{ path: 'devices', message: 'is not a known field' }],
    });
    expect(api.store.writes).toBe(writes);
    expect(await api.store.get({ kind: 'attachment', volumeId: 'data-01', instanceId: INSTANCE_A })).toBeUndefined();
  });
});
