/** A cursor holding no position, or two, was never issued by this API: 400 on the cursor, never the first page again. */
import { describe, expect, it } from 'vitest';
import { VolumeListSchema } from '../../lib/api/schemas.js';
import { apiHarness, INSTANCE_A, GP3 } from './api-fixtures.js';

const cursorOf = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('a cursor with no position or more than one', () => {
  it('is refused as not issued by this API, on the table list and on an instance list', async () => {
    const api = apiHarness();
    for (const volumeId of ['data-01', 'data-02']) {
      expect((await api.call({ method: 'POST', url: '/volumes', json: { volumeId, spec: GP3, attachTo: { instanceId: INSTANCE_A } } })).statusCode).toBe(201);
    }
    // The pages these lists issue work.
    const first = VolumeListSchema.parse((await api.call({ method: 'GET', url: `/volumes?limit=1&instanceId=${INSTANCE_A}` })).json);
    expect(first.cursor).toBeDefined();
    const cases = [
      { url: '/volumes?limit=1', cursor: { filter: '|' } },
      { url: '/volumes?limit=1', cursor: { filter: '|', store: first.cursor, after: 'data-01' } },
      { url: `/volumes?limit=1&instanceId=${INSTANCE_A}`, cursor: { filter: `${INSTANCE_A}|` } },
      { url: `/volumes?limit=1&instanceId=${INSTANCE_A}`, cursor: { filter: `${INSTANCE_A}|`, after: 'data-01', offset: 1 } },
    ];
    for (const { url, cursor } of cases) {
      const label = `${url} ${JSON.stringify(cursor)}`;
      const refused = await api.call({ method: 'GET', url: `${url}&cursor=${cursorOf(cursor)}` });
      expect(refused.statusCode, label).toBe(400);
      expect(refused.json, label).toMatchObject({
        type: 'urn:ebs-provisioner:problem:validation-failed',
        detail: 'the cursor is not usable: it is not a cursor this API issued',
        errors: [{ path: 'cursor', message: 'is not a cursor this API issued' }],
      });
    }
  });
});
