/**
 * docs/api.md: an invalid id is a `400` (`validation-failed`) wherever it is given; the list's
 * `instanceId` filter takes an EC2 instance id only.
 */
import { describe, expect, it } from 'vitest';
import { apiHarness } from './api-fixtures.js';

describe('GET /volumes filtered by an instance id that is not one', () => {
  it('is refused, naming the query parameter', async () => {
    const api = apiHarness();
    const response = await api.call({ method: 'GET', url: '/volumes?instanceId=instance-1' });
    expect(response.statusCode).toBe(400);
    expect(response.json).toMatchObject({ type: 'urn:ebs-provisioner:problem:validation-failed' });
    const { errors } = response.json as { errors: { path: string; message: string }[] };
    expect(errors.map((error) => error.path)).toEqual(['instanceId']);
  });
});
