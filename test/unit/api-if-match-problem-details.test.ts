/** The 412 answers of If-Match that cannot hold: a PUT naming an attachment that does not exist, and a header that can never match. */
import { describe, expect, it } from 'vitest';
import { apiHarness, INSTANCE_A, GP3 } from './api-fixtures.js';

interface Problem {
  type: string;
  detail: string;
  errors: Array<{ path: string; message: string }>;
}

describe('If-Match that cannot hold', () => {
  it('on PUT of an attachment that does not exist is 412 saying so, and creates nothing', async () => {
    const api = apiHarness();
    expect((await api.call({ method: 'POST', url: '/volumes', json: { volumeId: 'data-01', spec: GP3 } })).statusCode).toBe(201);
    const writes = api.store.writes;
    const response = await api.call({ method: 'PUT', url: `/volumes/data-01/attachments/${INSTANCE_A}`, headers: { 'If-Match': '"1"' } });
    expect(response.statusCode).toBe(412);
    expect(response.json).toMatchObject({
      type: 'urn:ebs-provisioner:problem:precondition-failed',
      detail: `the attachment of data-01 to ${INSTANCE_A} does not exist, so If-Match "1" does not hold; nothing was changed`,
      errors: [{ path: 'If-Match', message: 'names a record that does not exist' }],
    });
    expect(api.store.writes).toBe(writes);
    expect(await api.store.attachmentsOfVolume('data-01')).toEqual([]);
  });

  it('that is weak or malformed is 412 saying what to fix, with the current ETag', async () => {
    const api = apiHarness();
    const created = await api.call({ method: 'POST', url: '/volumes', json: { volumeId: 'data-01', spec: GP3 } });
    const tag = created.headers?.ETag as string;
    expect(tag).toMatch(/^"1\./);
    const weak = await api.call({ method: 'DELETE', url: '/volumes/data-01', headers: { 'If-Match': `W/${tag}` } });
    expect(weak.statusCode).toBe(412);
    expect(weak.headers?.ETag).toBe(tag);
    expect((weak.json as Problem).detail).toBe(
      `If-Match W/${tag} never matches: weak entity tags (W/) never match: If-Match compares strongly; send the ETag as the API gave it, such as ${tag}; nothing was changed`,
    );
    expect((weak.json as Problem).errors).toEqual([{ path: 'If-Match', message: `weak entity tags (W/) never match; send the ETag as the API gave it, such as ${tag}` }]);
    const malformed = await api.call({ method: 'DELETE', url: '/volumes/data-01', headers: { 'If-Match': 'garbage' } });
    expect(malformed.statusCode).toBe(412);
    expect((malformed.json as Problem).detail).toBe(`If-Match garbage never matches: If-Match must be a list of quoted entity tags or *, such as ${tag}; nothing was changed`);
    expect((malformed.json as Problem).errors).toEqual([{ path: 'If-Match', message: `must be a list of quoted entity tags or *, such as ${tag}` }]);
    expect(await api.store.get({ kind: 'volume', volumeId: 'data-01' })).toMatchObject({ life: 'alive' });
  });
});
