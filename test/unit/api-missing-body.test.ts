/** A route that needs a body, sent none or a blank one: a 400 saying the body is required, whatever the Content-Type. */
import { describe, expect, it } from 'vitest';
import { apiHarness, GP3 } from './api-fixtures.js';

const REQUIRED = { type: 'urn:ebs-provisioner:problem:validation-failed', detail: 'the request body is required', errors: [{ path: '', message: 'a JSON body is required' }] };

describe('a required body that is missing', () => {
  it('is a 400 saying the body is required, not a 415 asking for JSON, with or without a Content-Type, and writes nothing', async () => {
    const api = apiHarness();
    const asked = [
      { method: 'POST', url: '/volumes' },
      { method: 'POST', url: '/volumes', headers: { 'content-type': 'application/json' }, body: '' },
      { method: 'POST', url: '/volumes', headers: { 'content-type': 'text/plain' }, body: '  \n' },
    ] as const;
    for (const request of asked) {
      const answer = await api.call(request);
      expect(answer.statusCode, JSON.stringify(request)).toBe(400);
      expect(JSON.parse(answer.body), JSON.stringify(request)).toMatchObject(REQUIRED);
    }
    expect((await api.store.list({ limit: 10 })).items).toEqual([]);
  });

  it('on a PATCH leaves the volume as it was, and under a stale If-Match is a 412, as any refused body is', async () => {
    const api = apiHarness();
    const created = await api.call({ method: 'POST', url: '/volumes', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ volumeId: 'data-01', spec: GP3 }) });
    expect(created.statusCode).toBe(201);
    const before = await api.store.get({ kind: 'volume', volumeId: 'data-01' });
    const blank = await api.call({ method: 'PATCH', url: '/volumes/data-01', headers: { 'content-type': 'application/json' }, body: ' ' });
    expect(blank.statusCode).toBe(400);
    expect(JSON.parse(blank.body)).toMatchObject(REQUIRED);
    expect(await api.store.get({ kind: 'volume', volumeId: 'data-01' })).toEqual(before);
    const stale = await api.call({ method: 'PATCH', url: '/volumes/data-01', headers: { 'if-match': '"data-01@2:x"' } });
    expect(stale.statusCode).toBe(412);
  });

  it('is no body on a PUT of an attachment, whose body is optional: the attachment is written', async () => {
    const api = apiHarness();
    await api.call({ method: 'POST', url: '/volumes', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ volumeId: 'data-01', spec: GP3 }) });
    const put = await api.call({ method: 'PUT', url: '/volumes/data-01/attachments/i-0123456789abcdef0' });
    expect(put.statusCode).toBe(201);
  });
});
