/**
 * Requests at the edges of what API Gateway sends: ids that are not valid percent-encoding, an
 * event naming its route only in its request context, a route event without its path parameters,
 * and `__proto__` keys under keys long enough to be shortened in the answer.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { beforeEach, describe, expect, it } from 'vitest';
import { localLambdaContext, toProxyEvent } from '../../lib/api/node-server.js';
import { apiHarness, INSTANCE_A, type ApiHarness, GP3 } from './api-fixtures.js';

/** Half of a surrogate pair without its other half: text no encoding can carry. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

interface Answer {
  statusCode: number;
  json: { type?: string; detail?: string; errors?: Array<{ path: string; message: string }>; volumeId?: string };
}

describe('API requests at the edges of the event format', () => {
  let api: ApiHarness;

  beforeEach(async () => {
    api = apiHarness();
    expect((await api.call({ method: 'POST', url: '/volumes', json: { volumeId: 'data-01', spec: GP3 } })).statusCode).toBe(201);
  });

  /** Sends `event` (a local event changed by `change`) through the handler. */
  const send = async (url: string, change: (event: APIGatewayProxyEvent) => APIGatewayProxyEvent, method = 'GET'): Promise<Answer> => {
    const event = change(toProxyEvent({ method, url }));
    const result = await api.handler(event, localLambdaContext(event.requestContext.requestId));
    return { statusCode: result.statusCode, json: JSON.parse(result.body) as Answer['json'] };
  };
  const asRoutedBy = (resource: string, pathParameters: Record<string, string> | null) => (event: APIGatewayProxyEvent) => ({
    ...event,
    resource,
    pathParameters,
    requestContext: { ...event.requestContext, resourcePath: resource },
  });

  it('answers an id that is not valid percent-encoding as the id it is (400 naming it), routed on the path or on the resource', async () => {
    const local = await send('/volumes/data-%E0%A4%A', (event) => event);
    const deployed = await send('/volumes/data-%E0%A4%A', asRoutedBy('/volumes/{volumeId}', { volumeId: 'data-%E0%A4%A' }));
    for (const answer of [local, deployed]) {
      expect(answer.statusCode).toBe(400);
      expect(answer.json.errors).toEqual([expect.objectContaining({ path: 'volumeId' })]);
    }
    expect(deployed.json).toEqual(local.json);
  });

  it('routes an event that names its route only in its request context (no `resource`) on that route, not on its path', async () => {
    const answer = await send('/storage/volumes/data-01', (event) => {
      const { resource: _none, ...rest } = asRoutedBy('/volumes/{volumeId}', { volumeId: 'data-01' })(event);
      return rest as APIGatewayProxyEvent;
    });
    expect([answer.statusCode, answer.json.volumeId]).toEqual([200, 'data-01']);
  });

  it('refuses a route event without its path parameters as a request without the ids (400), never acting on another record', async () => {
    const answer = await send('/volumes/data-01', asRoutedBy('/volumes/{volumeId}', null), 'DELETE');
    expect(answer.statusCode).toBe(400);
    expect(answer.json.errors).toEqual([expect.objectContaining({ path: 'volumeId' })]);
    expect(await api.store.get({ kind: 'volume', volumeId: 'data-01' })).toMatchObject({ life: 'alive' });
  });

  it('shortens the path of a `__proto__` key under a long key without cutting a character outside the basic plane in two', async () => {
    const emoji = '\u{1F4BE}';
    // Keys of 190 code units (shown whole) in paths of 204: the cut falls after the high half of a pair
    // in the first, before the low half of one in the second.
    for (const key of [emoji.repeat(95), `a${emoji.repeat(94)}b`]) {
      const raw = `{${JSON.stringify(key)}: {"__proto__": 1}}`;
      const response = await api.call({ method: 'PUT', url: `/volumes/data-01/attachments/${INSTANCE_A}`, headers: { 'content-type': 'application/json' }, body: raw });
      expect(response.statusCode).toBe(400);
      const issue = (response.json as Answer['json']).errors!.find((error) => error.message === '"__proto__" cannot be a key')!;
      expect(issue.path, 'a half of a surrogate pair alone').not.toMatch(LONE_SURROGATE);
      expect(issue.path.length).toBeLessThanOrEqual(200);
      expect(issue.path).toContain('…');
      expect(issue.path.startsWith(`["${key.slice(0, 40)}`)).toBe(true);
      expect(issue.path.endsWith(`${emoji}${key.endsWith('b') ? 'b' : ''}"].__proto__`)).toBe(true);
    }
  });
});
