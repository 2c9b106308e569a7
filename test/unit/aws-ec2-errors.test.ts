import { EC2ServiceException } from '@aws-sdk/client-ec2';
import { describe, expect, it } from 'vitest';
import { EC2_ERROR_KINDS, toProviderError } from '../../lib/aws/ec2-errors.js';
import { PROVIDER_ERROR_KINDS, ProviderError, type ProviderErrorKind } from '../../lib/engine/ports.js';
import { realEc2Error } from '../support/ec2-errors.js';

/** Error responses as EC2 sends them (codes and messages from recorded responses and the EC2 error reference). */
const CASES: { code: string; message: string; status?: number; kind: ProviderErrorKind }[] = [
  { code: 'RequestLimitExceeded', message: 'Request limit exceeded.', status: 503, kind: 'throttled' },
  { code: 'InvalidVolume.NotFound', message: "The volume 'vol-0a1b2c3d4e5f67890' does not exist.", kind: 'not-found' },
  { code: 'InvalidInstanceID.NotFound', message: "The instance ID 'i-0123456789abcdef0' does not exist", kind: 'not-found' },
  { code: 'InvalidInstanceID.Malformed', message: 'Invalid id: "i-nope"', kind: 'not-found' },
  { code: 'IncorrectState', message: "Volume 'vol-0a1b2c3d4e5f67890'is in the 'available' state.", kind: 'not-attached' },
  { code: 'IncorrectState', message: "Volume 'vol-0a1b2c3d4e5f67890' is in the 'available' state.", kind: 'not-attached' },
  { code: 'IncorrectState', message: "vol-0a1b2c3d4e5f67890 is not 'available'.", kind: 'incorrect-state' },
  { code: 'IncorrectInstanceState', message: "The instance 'i-0123456789abcdef0' is not in a valid state for this operation.", kind: 'incorrect-state' },
  { code: 'VolumeInUse', message: 'vol-07df203db07537f7e is already attached to an instance', kind: 'already-attached' },
  { code: 'VolumeInUse', message: 'Volume vol-07df203db07537f7e is currently attached to i-0123456789abcdef0', kind: 'incorrect-state' },
  {
    code: 'InvalidVolume.ZoneMismatch',
    message: 'The volume vol-0a1b2c3d4e5f67890 is not in the same availability zone as instance i-0123456789abcdef0',
    kind: 'zone-mismatch',
  },
  {
    code: 'InvalidParameterValue',
    message: "Invalid value '/dev/sdf' for unixDevice. Attachment point /dev/sdf is already in use",
    kind: 'device-in-use',
  },
  { code: 'InvalidParameterValue', message: "Value (huge) for parameter size is invalid. Expected: 'integer'.", kind: 'invalid-request' },
  {
    code: 'IdempotentParameterMismatch',
    message: 'The client token you have provided is associated with a resource that is already deleted. Please use a different client token.',
    kind: 'idempotency-mismatch',
  },
  { code: 'UnauthorizedOperation', message: 'You are not authorized to perform this operation. Encoded authorization failure message: AbC', kind: 'unauthorized' },
  // The EC2 API reference names the permission error Client.UnauthorizedOperation; the prefix says only whose fault it is.
  {
    code: 'Client.UnauthorizedOperation',
    message: 'You are not authorized to perform this operation. Encoded authorization failure message: AbC',
    kind: 'unauthorized',
  },
  { code: 'Client.RequestLimitExceeded', message: 'Request limit exceeded.', status: 503, kind: 'throttled' },
  { code: 'Server.InternalError', message: 'An internal error has occurred', status: 500, kind: 'transient' },
  { code: 'VolumeLimitExceeded', message: 'You have exceeded your maximum gp3 storage limit of 50 TiB in this region.', kind: 'limit-exceeded' },
  { code: 'TagLimitExceeded', message: 'The maximum number of tags for resource vol-1 has been reached.', kind: 'limit-exceeded' },
  { code: 'AttachmentLimitExceeded', message: 'The instance i-0123456789abcdef0 has reached its attachment limit.', kind: 'limit-exceeded' },
  {
    code: 'IncorrectModificationState',
    message: "Cannot modify volume vol-0a1b2c3d4e5f67890 as it is in 'optimizing' state. Try again later.",
    kind: 'modification-in-progress',
  },
  {
    code: 'VolumeModificationRateExceeded',
    message: "You've reached the maximum modification rate per volume limit. You can modify volume vol-0a1b2c3d4e5f67890 again after 2026-01-02T00:00:00.000Z.",
    kind: 'modification-cooldown',
  },
  { code: 'InvalidSnapshot.NotFound', message: "The snapshot 'snap-0123456789abcdef0' does not exist.", kind: 'invalid-request' },
  { code: 'InternalError', message: 'An internal error has occurred', status: 500, kind: 'transient' },
  { code: 'Unavailable', message: 'The server is overloaded and cannot handle the request', status: 503, kind: 'transient' },
  { code: 'SomethingNew', message: 'A brand new server-side failure', status: 503, kind: 'transient' },
  { code: 'MissingParameter', message: "The request must contain the parameter 'size' or 'snapshotId'", kind: 'invalid-request' },
];

describe('EC2 error table', () => {
  it.each(CASES)('$code ($message) → $kind', async ({ code, message, status, kind }) => {
    const error = await realEc2Error(code, message, status);
    // The SDK's own shape, as the adapter will see it.
    expect(error).toBeInstanceOf(EC2ServiceException);
    expect(error.name).toBe(code);
    expect((error as EC2ServiceException).$metadata.httpStatusCode).toBe(status ?? 400);

    const mapped = toProviderError(error);
    expect(mapped).toBeInstanceOf(ProviderError);
    expect(mapped).toMatchObject({ kind, code, message });
  });

  it('maps timeouts and network failures (no HTTP answer) to transient', () => {
    const timeout = Object.assign(new Error('Request timed out after 5000 ms'), { name: 'TimeoutError' });
    expect(toProviderError(timeout).kind).toBe('transient');
    const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    expect(toProviderError(reset)).toMatchObject({ kind: 'transient', code: 'ECONNRESET' });
  });

  it('passes provider errors through and only produces known kinds', () => {
    const original = new ProviderError('not-found', 'InvalidVolume.NotFound', 'gone');
    expect(toProviderError(original)).toBe(original);
    for (const [code, rule] of Object.entries(EC2_ERROR_KINDS)) {
      const kinds = typeof rule === 'function' ? [rule(''), rule('already attached'), rule("is in the 'available' state"), rule('already in use')] : [rule];
      for (const kind of kinds) expect(PROVIDER_ERROR_KINDS, code).toContain(kind);
    }
  });
});
