/**
 * A position cursor (as an earlier version issued for an instance's list) holds a whole number of
 * volumes to skip; one holding a fraction, a negative number, a number past 2^53 or a string was
 * never issued by this API: 400 on the cursor (docs/api.md), not a page read from somewhere.
 */
import { describe, expect, it } from 'vitest';
import { apiHarness, INSTANCE_A, GP3 } from './api-fixtures.js';

const cursorOf = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
const url = `/volumes?limit=1&instanceId=${INSTANCE_A}`;

describe('a position cursor whose position is not a whole number of volumes', () => {
  it('is refused as not issued by this API', async () => {
    const api = apiHarness();
    for (const volumeId of ['data-01', 'data-02', 'data-03']) {
      expect((await api.call({ method: 'POST', url: '/volumes', json: { volumeId, spec: GP3, attachTo: { instanceId: INSTANCE_A } } })).statusCode).toBe(201);
    }
    // A whole position is read as the volumes to skip.
    const taken = await api.call({ method: 'GET', url: `${url}&cursor=${cursorOf({ filter: `${INSTANCE_A}|`, offset: 1 })}` });
    expect(taken.statusCode).toBe(200);
    for (const offset of [1.5, -1, '1', 2 ** 53]) {
      const label = JSON.stringify(offset);
      const refused = await api.call({ method: 'GET', url: `${url}&cursor=${cursorOf({ filter: `${INSTANCE_A}|`, offset })}` });
      expect(refused.statusCode, label).toBe(400);
      expect(refused.json, label).toMatchObject({
        type: 'urn:ebs-provisioner:problem:validation-failed',
        detail: 'the cursor is not usable: it is not a cursor this API issued',
        errors: [{ path: 'cursor', message: 'is not a cursor this API issued' }],
      });
    }
  });
});
