/** The body size limit: a body of exactly API.maxBodyBytes is read, one byte more is 413. */
import { describe, expect, it } from 'vitest';
import { API } from '../../lib/settings.js';
import { apiHarness, GP3 } from './api-fixtures.js';

describe('a body at the size limit', () => {
  it('is read at exactly the limit and refused one byte over it', async () => {
    const api = apiHarness();
    const padded = (bytes: number, volumeId: string) => {
      const json = JSON.stringify({ volumeId, spec: GP3 });
      return json + ' '.repeat(bytes - json.length);
    };
    const send = (body: string) => api.call({ method: 'POST', url: '/volumes', headers: { 'content-type': 'application/json' }, body });
    const exact = padded(API.maxBodyBytes, 'data-01');
    expect(Buffer.byteLength(exact)).toBe(API.maxBodyBytes);
    expect((await send(exact)).statusCode).toBe(201);
    const over = await send(padded(API.maxBodyBytes + 1, 'data-02'));
    expect(over.statusCode).toBe(413);
    expect(await api.store.get({ kind: 'volume', volumeId: 'data-02' })).toBeUndefined();
  });
});
