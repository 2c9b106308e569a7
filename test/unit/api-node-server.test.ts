import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { createApiHandler } from '../../lib/api/handler.js';
import { GATEWAY_MAX_PAYLOAD_BYTES, startApiServer, toProxyEvent, type RunningApiServer } from '../../lib/api/node-server.js';
import { MemoryRecordStore } from '../../lib/memory/store.js';
import { ManualClock } from './api-fixtures.js';

describe('local API server', () => {
  let server: RunningApiServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('builds the REST proxy event API Gateway would send', () => {
    const event = toProxyEvent({
      method: 'get',
      url: '/volumes?state=available&state=error&limit=5',
      headers: { 'content-type': 'application/json', 'x-multi': ['a', 'b'] },
      body: '',
    });
    expect(event.httpMethod).toBe('GET');
    expect(event.path).toBe('/volumes');
    expect(event.queryStringParameters).toEqual({ state: 'error', limit: '5' });
    expect(event.multiValueQueryStringParameters).toEqual({ state: ['available', 'error'], limit: ['5'] });
    expect(event.headers).toEqual({ 'content-type': 'application/json', 'x-multi': 'a,b' });
    expect(event.multiValueHeaders['x-multi']).toEqual(['a', 'b']);
    expect(event.body).toBeNull();
    expect(event.requestContext.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(toProxyEvent({ method: 'GET', url: '/volumes' }).queryStringParameters).toBeNull();
  });

  it('routes the path as sent: a `..` segment names no record, where resolving it would have named the volume above', async () => {
    expect(toProxyEvent({ method: 'DELETE', url: '/volumes/v/attachments/..?force=true' }).path).toBe('/volumes/v/attachments/..');
    expect(toProxyEvent({ method: 'GET', url: '//volumes' }).path).toBe('//volumes');
    const store = new MemoryRecordStore();
    server = await startApiServer(createApiHandler({ store, clock: new ManualClock() }));
    const created = await fetch(`${server.url}/volumes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ volumeId: 'data-01', spec: { sizeGiB: 10, volumeType: 'gp3', availabilityZone: 'us-east-1a' } }),
    });
    expect(created.status).toBe(201);
    // fetch, and request given a URL, resolve dot segments themselves; a path given as it is is sent as it is.
    const { hostname, port } = new URL(server.url);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request({ hostname, port, path: '/volumes/data-01/attachments/..', method: 'DELETE' }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(400);
    expect((await store.get({ kind: 'volume', volumeId: 'data-01' }))?.life).toBe('alive');
  });

  it('closing lets a request under way finish with its answer, and takes no new one', async () => {
    let entered!: () => void;
    const inHandler = new Promise<void>((resolve) => (entered = resolve));
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    const running = await startApiServer(async () => {
      entered();
      await finished;
      return { statusCode: 201, headers: { 'Content-Type': 'application/json' }, body: '{"stored":true}' };
    });
    const answer = fetch(`${running.url}/volumes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    await inHandler;
    const closed = running.close();
    await expect(fetch(`${running.url}/volumes`)).rejects.toThrow();
    finish();
    const response = await answer;
    expect(response.status).toBe(201);
    expect(await response.json()).toEqual({ stored: true });
    await closed;
  });

  it('serves a handler on a free loopback port, passing status, headers and body through', async () => {
    const seen: APIGatewayProxyEvent[] = [];
    server = await startApiServer(async (event) => {
      seen.push(event);
      return { statusCode: 201, headers: { 'Content-Type': 'application/json', Location: '/volumes/x' }, body: '{"ok":true}' };
    });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const response = await fetch(`${server.url}/volumes?limit=2`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"a":1}',
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('location')).toBe('/volumes/x');
    expect(await response.json()).toEqual({ ok: true });
    expect(seen[0]).toMatchObject({ httpMethod: 'POST', path: '/volumes', body: '{"a":1}', queryStringParameters: { limit: '2' } });
  });

  it('refuses bodies over the API Gateway payload limit without calling the handler', async () => {
    let called = false;
    server = await startApiServer(async () => {
      called = true;
      return { statusCode: 200, body: '' };
    });
    const { status, cacheControl } = await new Promise<{ status: number; cacheControl: string | undefined }>((resolve, reject) => {
      const req = request(`${server!.url}/volumes`, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
        res.resume();
        resolve({ status: res.statusCode ?? 0, cacheControl: res.headers['cache-control'] });
      });
      req.on('error', reject);
      req.end(Buffer.alloc(GATEWAY_MAX_PAYLOAD_BYTES + 1, 'x'));
    });
    expect(status).toBe(413);
    // Like every answer of the API's handler.
    expect(cacheControl).toBe('no-store');
    expect(called).toBe(false);
  });

  it('passes a 405 through with its Allow header, for HEAD without a body', async () => {
    server = await startApiServer(createApiHandler({ store: new MemoryRecordStore(), clock: new ManualClock() }));
    const head = await fetch(`${server.url}/volumes/data-01`, { method: 'HEAD' });
    expect(head.status).toBe(405);
    expect(head.headers.get('allow')).toBe('GET, PATCH, DELETE');
    expect(await head.text()).toBe('');
    const options = await fetch(`${server.url}/openapi.json`, { method: 'OPTIONS' });
    expect(options.status).toBe(405);
    expect(options.headers.get('allow')).toBe('GET');
    expect(await options.json()).toMatchObject({ type: 'urn:ebs-provisioner:problem:method-not-allowed' });
  });

  it('answers query parameters named like the members every object has (constructor, __proto__) as unknown ones, 400 naming them', async () => {
    const event = toProxyEvent({ method: 'GET', url: '/volumes?constructor=1&__proto__=2&toString=3&toString=4' });
    expect(Object.entries(event.queryStringParameters!)).toEqual([['constructor', '1'], ['__proto__', '2'], ['toString', '4']]);
    expect(Object.entries(event.multiValueQueryStringParameters!)).toEqual([['constructor', ['1']], ['__proto__', ['2']], ['toString', ['3', '4']]]);

    server = await startApiServer(createApiHandler({ store: new MemoryRecordStore(), clock: new ManualClock() }));
    for (const name of ['constructor', '__proto__', 'hasOwnProperty']) {
      const response = await fetch(`${server.url}/volumes?${name}=1`);
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ errors: [{ path: name, message: 'is not a known field' }] });
    }
  });

  it('passes ETag out and If-Match in over HTTP, several If-Match fields read as one list', async () => {
    server = await startApiServer(createApiHandler({ store: new MemoryRecordStore(), clock: new ManualClock() }));
    const json = { 'content-type': 'application/json' };
    const created = await fetch(`${server.url}/volumes`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ volumeId: 'data-01', spec: { sizeGiB: 20, volumeType: 'gp3', availabilityZone: 'us-east-1a' } }),
    });
    const tag = created.headers.get('etag')!;
    expect(tag).toMatch(/^"1\.[0-9a-z]+"$/);
    const stale = await fetch(`${server.url}/volumes/data-01`, { method: 'PATCH', headers: { ...json, 'if-match': '"5"' }, body: '{"sizeGiB":30}' });
    expect(stale.status).toBe(412);
    expect(stale.headers.get('etag')).toBe(tag);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${server!.url}/volumes/data-01`, { method: 'PATCH', headers: json }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.setHeader('if-match', ['"5"', tag]); // two header fields
      req.on('error', reject);
      req.end('{"sizeGiB":30}');
    });
    expect(status).toBe(200);
    expect((await fetch(`${server.url}/volumes/data-01`)).headers.get('etag')).toBe(tag.replace('"1.', '"2.'));
  });

  it('answers a handler crash with a 500 problem that keeps the crash to itself', async () => {
    server = await startApiServer(async () => {
      throw new Error('boom at /srv/secret-path');
    });
    const response = await fetch(`${server.url}/volumes`);
    expect(response.status).toBe(500);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(response.headers.get('cache-control')).toBe('no-store');
    const body = await response.text();
    expect(JSON.parse(body)).toMatchObject({ status: 500, type: 'urn:ebs-provisioner:problem:internal', detail: 'the local server failed to run the request' });
    expect(body).not.toContain('boom');
    expect(body).not.toContain('secret-path');
  });
});
