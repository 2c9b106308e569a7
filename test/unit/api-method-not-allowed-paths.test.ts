/**
 * 405 is for a path that exists under other methods (docs/api.md): a path the routes serve with a
 * trailing slash exists as well, and one that only looks like a route's path does not.
 */
import { describe, expect, it } from 'vitest';
import { apiHarness, INSTANCE_A } from './api-fixtures.js';

describe('which paths exist for a 405', () => {
  it('is 405 with Allow for a route path with a trailing slash, as the routes serve it', async () => {
    const api = apiHarness();
    expect((await api.call({ method: 'GET', url: '/volumes/' })).statusCode).toBe(200);
    for (const [url, allow] of [
      ['/volumes/', 'GET, POST'],
      ['/volumes/data-01/', 'GET, PATCH, DELETE'],
      [`/volumes/data-01/attachments/${INSTANCE_A}/`, 'PUT, DELETE'],
    ] as const) {
      const answer = await api.call({ method: 'OPTIONS', url });
      expect(answer.statusCode, url).toBe(405);
      expect(answer.headers?.Allow, url).toBe(allow);
    }
  });

  it('is 404 for a path that differs from /openapi.json in its dot: no route has that path', async () => {
    const api = apiHarness();
    for (const url of ['/openapi-json', '/openapiXjson']) {
      const answer = await api.call({ method: 'GET', url });
      expect(answer.statusCode, url).toBe(404);
      expect(answer.json, url).toMatchObject({ type: 'urn:ebs-provisioner:problem:no-such-route' });
    }
    const post = await api.call({ method: 'POST', url: '/openapi.json' });
    expect(post.statusCode).toBe(405);
    expect(post.headers?.Allow).toBe('GET');
  });
});
