/** The response headers the OpenAPI document gives a route's success response, from its `etag` and `location` flags, each on its own. */
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../lib/api/openapi.js';
import type { ApiRoute } from '../../lib/api/routes.js';

const route = (responses: ApiRoute['responses']): ApiRoute => ({
  method: 'GET',
  path: '/things',
  operationId: 'getThings',
  summary: 'Things',
  responses,
  run: async () => ({ status: 200, body: {} }),
});

const headersOf = (responses: ApiRoute['responses']) => {
  const document = buildOpenApiDocument([route(responses)]);
  const answer = document.paths['/things']!.get!.responses['200'] as { headers?: Record<string, unknown> };
  return Object.keys(answer.headers ?? {});
};

describe('success response headers in the OpenAPI document', () => {
  it('gives Location to a response with `location` alone, ETag to one with `etag` alone, both to one with both, none to one with neither', () => {
    expect(headersOf({ 200: { description: 'Found.', location: true } })).toEqual(['Location']);
    expect(headersOf({ 200: { description: 'Found.', etag: true } })).toEqual(['ETag']);
    expect(headersOf({ 200: { description: 'Found.', etag: true, location: true } })).toEqual(['ETag', 'Location']);
    expect(headersOf({ 200: { description: 'Found.' } })).toEqual([]);
  });
});
