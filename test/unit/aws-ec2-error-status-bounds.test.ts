import { describe, expect, it } from 'vitest';
import { toProviderError } from '../../lib/aws/ec2-errors.js';

/**
 * A code the error table does not know, judged by its HTTP status alone (no `$fault` beside it):
 * any 5xx is EC2's own fault and retried, any 4xx is the request's and not retried. The first
 * status of each class counts as that class.
 */
describe('an unknown EC2 code judged by its HTTP status at the class bounds', () => {
  it('500, the first server error, is transient', () => {
    expect(toProviderError({ name: 'SomethingNew', message: 'failed', $metadata: { httpStatusCode: 500 } })).toMatchObject({ kind: 'transient', code: 'SomethingNew' });
  });

  it('499, the last client error, is an invalid request', () => {
    expect(toProviderError({ name: 'SomethingNew', message: 'refused', $metadata: { httpStatusCode: 499 } })).toMatchObject({ kind: 'invalid-request', code: 'SomethingNew' });
  });

  it('400, the first client error, is an invalid request', () => {
    expect(toProviderError({ name: 'SomethingNew', message: 'refused', $metadata: { httpStatusCode: 400 } })).toMatchObject({ kind: 'invalid-request', code: 'SomethingNew' });
  });
});

describe('an error thrown with an empty message', () => {
  it('says its code instead of nothing', () => {
    const error = Object.assign(new Error(''), { name: 'TimeoutError' });
    expect(toProviderError(error)).toMatchObject({ kind: 'transient', code: 'TimeoutError', message: 'TimeoutError (no message)' });
  });
});
