/**
 * `requestParameters` (infra/constructs/api.ts): API Gateway requires every path parameter of a
 * route, and a query parameter only when the route's query schema has no default for it and does
 * not leave it out: what a request without it would be refused for by the function too.
 */
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { requestParameters } from '../../infra/constructs/api.js';
import type { ApiRoute } from '../../lib/api/routes.js';

const route = (path: string, query?: z.ZodObject): ApiRoute =>
  ({ method: 'GET', path, operationId: 'look', summary: 'look', query, responses: {}, run: () => Promise.reject(new Error('not run')) }) as ApiRoute;

describe('API Gateway request parameters of a route', () => {
  it('every path parameter is required', () => {
    expect(requestParameters(route('/volumes/{volumeId}/attachments/{instanceId}'))).toEqual({
      'method.request.path.volumeId': true,
      'method.request.path.instanceId': true,
    });
  });

  it('a query parameter without a default that may not be left out is required; an optional one or one with a default is not', () => {
    const query = z.object({ needed: z.string(), optional: z.string().optional(), defaulted: z.coerce.number().default(10) });
    expect(requestParameters(route('/volumes', query))).toEqual({
      'method.request.querystring.needed': true,
      'method.request.querystring.optional': false,
      'method.request.querystring.defaulted': false,
    });
  });

  it('a route with neither has none', () => {
    expect(requestParameters(route('/volumes'))).toEqual({});
  });
});
