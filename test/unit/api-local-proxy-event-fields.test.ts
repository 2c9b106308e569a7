/**
 * Fields of the REST proxy event the local server builds as API Gateway fills them
 * (https://docs.aws.amazon.com/apigateway/latest/developerguide/set-up-lambda-proxy-integrations.html),
 * and the Lambda context it runs the handler with.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { localLambdaContext, toProxyEvent } from '../../lib/api/node-server.js';
import { API } from '../../lib/settings.js';

describe('the proxy event of a local request', () => {
  it('has no query string maps when the request has no query string', () => {
    const event = toProxyEvent({ method: 'GET', url: '/volumes' });
    expect(event.queryStringParameters).toBeNull();
    expect(event.multiValueQueryStringParameters).toBeNull();
  });

  it("gives the caller's User-Agent in the request context's identity, null without one", () => {
    expect(toProxyEvent({ method: 'GET', url: '/volumes', headers: { 'user-agent': 'ebs-provisioner-cli/1.0' } }).requestContext.identity.userAgent).toBe(
      'ebs-provisioner-cli/1.0',
    );
    expect(toProxyEvent({ method: 'GET', url: '/volumes' }).requestContext.identity.userAgent).toBeNull();
  });

  it('leaves out a header whose value is undefined (not sent)', () => {
    const event = toProxyEvent({ method: 'GET', url: '/volumes', headers: { 'if-match': undefined, accept: 'application/json' } });
    expect(event.headers).toEqual({ accept: 'application/json' });
    expect(event.multiValueHeaders).toEqual({ accept: ['application/json'] });
  });

  it('keeps a fragment out of the path (RFC 3986 §3.5: it is no part of the path)', () => {
    expect(toProxyEvent({ method: 'GET', url: '/volumes/data-01#details' }).path).toBe('/volumes/data-01');
  });
});

describe('the Lambda context of a local request', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("counts down the API function's timeout, in milliseconds, and stops at 0", () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const context = localLambdaContext('request-1');
    expect(context.getRemainingTimeInMillis()).toBe(API.timeoutSeconds * 1000);
    vi.setSystemTime(Date.now() + 1_000);
    expect(context.getRemainingTimeInMillis()).toBe(API.timeoutSeconds * 1000 - 1_000);
    vi.setSystemTime(Date.now() + API.timeoutSeconds * 1000);
    expect(context.getRemainingTimeInMillis()).toBe(0);
  });
});
