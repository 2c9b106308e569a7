/** A body is JSON only when sent as `application/json` or an `application/…+json` type: any other media type is a 415 that writes nothing. */
import { describe, expect, it } from 'vitest';
import { apiHarness } from './api-fixtures.js';

const BODY = JSON.stringify({ volumeId: 'data-01', spec: { sizeGiB: 20, volumeType: 'gp3', availabilityZone: 'us-east-1a' } });

describe('the media type of a body', () => {
  it('refuses a type whose name only ends in application/json', async () => {
    const api = apiHarness();
    for (const contentType of ['x-application/json', 'text/application/json', 'notapplication/json; charset=utf-8']) {
      const writes = api.store.writes;
      const answer = await api.call({ method: 'POST', url: '/volumes', headers: { 'Content-Type': contentType }, body: BODY });
      expect(answer.statusCode, contentType).toBe(415);
      expect(answer.json, contentType).toMatchObject({ type: 'urn:ebs-provisioner:problem:unsupported-media-type', errors: [{ path: 'Content-Type' }] });
      expect(api.store.writes, contentType).toBe(writes);
    }
  });

  it('takes application/json and an application/…+json type', async () => {
    const api = apiHarness();
    const created = await api.call({ method: 'POST', url: '/volumes', headers: { 'Content-Type': 'application/merge-patch+json' }, body: BODY });
    expect(created.statusCode).toBe(201);
  });
});
