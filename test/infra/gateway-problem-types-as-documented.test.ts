/**
 * The problem type of each answer API Gateway gives itself, as docs/api.md's table of gateway
 * responses lists it: an unsigned request or an unknown route is `missing-authentication-token`, a
 * signature that does not match, expired credentials or IAM refusing the caller `not-authorized`
 * (both 403: only the type tells them apart), throttling `throttled`, API Gateway's own checks
 * and configuration their own types, and a function it could not call or that did not answer in
 * time `no-answer`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeSynthesized, synthesize, type Synthesized } from './synth.js';

let s: Synthesized;
beforeAll(() => {
  s = synthesize({}, { bundle: false });
}, 120_000);
afterAll(removeSynthesized);

/** docs/api.md, "Deployed, API Gateway answers some requests itself": each response type's problem type suffix. */
const DOCUMENTED: Record<string, string> = {
  MISSING_AUTHENTICATION_TOKEN: 'missing-authentication-token',
  INVALID_SIGNATURE: 'not-authorized',
  EXPIRED_TOKEN: 'not-authorized',
  ACCESS_DENIED: 'not-authorized',
  THROTTLED: 'throttled',
  BAD_REQUEST_PARAMETERS: 'validation-failed',
  BAD_REQUEST_BODY: 'validation-failed',
  RESOURCE_NOT_FOUND: 'no-such-route',
  REQUEST_TOO_LARGE: 'body-too-large',
  UNSUPPORTED_MEDIA_TYPE: 'unsupported-media-type',
  API_CONFIGURATION_ERROR: 'internal',
  INTEGRATION_FAILURE: 'no-answer',
  INTEGRATION_TIMEOUT: 'no-answer',
};

describe('gateway responses', () => {
  it('carry the problem type docs/api.md gives each', () => {
    const types = new Map(
      Object.values(s.json.Resources)
        .filter((resource) => resource.Type === 'AWS::ApiGateway::GatewayResponse')
        .map((resource) => {
          const template = (resource.Properties!.ResponseTemplates as Record<string, string>)['application/json']!;
          const body = JSON.parse(template.replace('$context.error.messageString', '"message"')) as { type: string };
          return [resource.Properties!.ResponseType as string, body.type.replace('urn:ebs-provisioner:problem:', '')];
        }),
    );
    for (const [type, kind] of Object.entries(DOCUMENTED)) expect(types.get(type), type).toBe(kind);
  });
});
