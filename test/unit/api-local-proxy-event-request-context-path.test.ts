/**
 * The request context of the proxy event the local server builds names the request's path, as
 * API Gateway's does (https://docs.aws.amazon.com/apigateway/latest/developerguide/set-up-lambda-proxy-integrations.html):
 * without its query string, the same as the event's own `path` (the local server has no stage in its URLs).
 */
import { describe, expect, it } from 'vitest';
import { toProxyEvent } from '../../lib/api/node-server.js';

describe("the proxy event's request context", () => {
  it("gives the request's path, without its query string", () => {
    const event = toProxyEvent({ method: 'DELETE', url: '/volumes/data-01/attachments/i-0123456789abcdef0?force=true' });
    expect(event.requestContext.path).toBe('/volumes/data-01/attachments/i-0123456789abcdef0');
    expect(event.requestContext.path).toBe(event.path);
    expect(event.requestContext.httpMethod).toBe('DELETE');
  });
});
