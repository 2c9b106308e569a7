import { EC2ServiceException } from '@aws-sdk/client-ec2';
import { isThrottlingError } from '@smithy/core/retry';
import { describe, expect, it } from 'vitest';
import { EC2_ERROR_KINDS, toProviderError } from '../../lib/aws/ec2-errors.js';
import { classifyError } from '../../lib/engine/errors.js';
import { ProviderError, type ProviderErrorKind } from '../../lib/engine/ports.js';
import { realEc2Error } from '../support/ec2-errors.js';

/**
 * Error responses as EC2 sends them beyond one reading per code (TABLE below has those): a recorded
 * message variant, the `Client.` / `Server.` prefixes of the API reference, codes the table does
 * not know (judged by status), each checked in the SDK's own shape.
 */
const CASES: { code: string; message: string; status?: number; kind: ProviderErrorKind }[] = [
  { code: 'IncorrectState', message: "Volume 'vol-0a1b2c3d4e5f67890'is in the 'available' state.", kind: 'not-attached' },
  { code: 'InvalidVolume.ZoneMismatch', message: 'The volume vol-0a1b2c3d4e5f67890 is not in the same availability zone as instance i-0123456789abcdef0', kind: 'zone-mismatch' },
  // The EC2 API reference names the permission error Client.UnauthorizedOperation; the prefix says only whose fault it is.
  {
    code: 'Client.UnauthorizedOperation',
    message: 'You are not authorized to perform this operation. Encoded authorization failure message: AbC',
    kind: 'unauthorized',
  },
  { code: 'Client.RequestLimitExceeded', message: 'Request limit exceeded.', status: 503, kind: 'throttled' },
  { code: 'Server.InternalError', message: 'An internal error has occurred', status: 500, kind: 'transient' },
  {
    code: 'VolumeModificationRateExceeded',
    message: "You've reached the maximum modification rate per volume limit. You can modify volume vol-0a1b2c3d4e5f67890 again after 2026-01-02T00:00:00.000Z.",
    kind: 'modification-cooldown',
  },
  { code: 'InternalError', message: 'An internal error has occurred', status: 500, kind: 'transient' },
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

  it('passes provider errors through unchanged', () => {
    const original = new ProviderError('not-found', 'InvalidVolume.NotFound', 'gone');
    expect(toProviderError(original)).toBe(original);
  });
});

/**
 * Every code of the table with the kind it is meant to have, as EC2 sends it (a 400 unless EC2
 * answers that code with a 5xx), so that no entry can change unnoticed. Codes whose kind depends
 * on the message appear once per reading.
 */
const TABLE: { code: string; message: string; status?: number; kind: ProviderErrorKind }[] = [
  { code: 'InvalidVolume.NotFound', message: "The volume 'vol-0a1b2c3d4e5f67890' does not exist.", kind: 'not-found' },
  { code: 'InvalidVolumeID.Malformed', message: 'Invalid id: "vol-nope" (expecting "vol-...")', kind: 'not-found' },
  { code: 'InvalidInstanceID.NotFound', message: "The instance ID 'i-0123456789abcdef0' does not exist", kind: 'not-found' },
  { code: 'InvalidInstanceID.Malformed', message: 'Invalid id: "i-nope"', kind: 'not-found' },
  { code: 'IncorrectState', message: "Volume 'vol-0a1b2c3d4e5f67890' is in the 'available' state.", kind: 'not-attached' },
  { code: 'IncorrectState', message: "vol-0a1b2c3d4e5f67890 is not 'available'.", kind: 'incorrect-state' },
  { code: 'InvalidAttachment.NotFound', message: 'The volume vol-0a1b2c3d4e5f67890 is not attached to instance i-0123456789abcdef0', kind: 'not-attached' },
  { code: 'IncorrectInstanceState', message: "The instance 'i-0123456789abcdef0' is not in a valid state for this operation.", kind: 'incorrect-state' },
  { code: 'IncorrectModificationState', message: "Cannot modify volume vol-0a1b2c3d4e5f67890 as it is in 'optimizing' state. Try again later.", kind: 'modification-in-progress' },
  { code: 'VolumeInUse', message: 'vol-07df203db07537f7e is already attached to an instance', kind: 'already-attached' },
  { code: 'VolumeInUse', message: 'Volume vol-07df203db07537f7e is currently attached to i-0123456789abcdef0', kind: 'incorrect-state' },
  { code: 'InvalidVolume.ZoneMismatch', message: 'The volume is not in the same availability zone as the instance', kind: 'zone-mismatch' },
  { code: 'InvalidParameterValue', message: "Invalid value '/dev/sdf' for unixDevice. Attachment point /dev/sdf is already in use", kind: 'device-in-use' },
  { code: 'InvalidParameterValue', message: "Value (huge) for parameter size is invalid. Expected: 'integer'.", kind: 'invalid-request' },
  { code: 'InvalidDevice.InUse', message: 'The device /dev/sdf is already in use on the instance.', kind: 'device-in-use' },
  { code: 'IdempotentParameterMismatch', message: 'The client token you have provided is associated with a resource that is already deleted.', kind: 'idempotency-mismatch' },
  { code: 'UnauthorizedOperation', message: 'You are not authorized to perform this operation.', status: 403, kind: 'unauthorized' },
  { code: 'AccessDenied', message: 'Access denied', status: 403, kind: 'unauthorized' },
  { code: 'AccessDeniedException', message: 'Access denied', status: 403, kind: 'unauthorized' },
  { code: 'AuthFailure', message: 'AWS was not able to validate the provided access credentials', status: 401, kind: 'unauthorized' },
  { code: 'ExpiredToken', message: 'The security token included in the request is expired', kind: 'unauthorized' },
  { code: 'ExpiredTokenException', message: 'The security token included in the request is expired', kind: 'unauthorized' },
  { code: 'InvalidClientTokenId', message: 'The security token included in the request is invalid.', kind: 'unauthorized' },
  { code: 'SignatureDoesNotMatch', message: 'Signature expired: 20261126T040000Z is now earlier than 20261126T040500Z (20261126T045500Z - 15 min.)', status: 403, kind: 'unauthorized' },
  { code: 'InvalidKMSKey.InvalidState', message: 'The KMS key provided is in an incorrect state', kind: 'unauthorized' },
  { code: 'KMS.DisabledException', message: 'The key is disabled', kind: 'unauthorized' },
  { code: 'KMS.NotFoundException', message: 'The key does not exist', kind: 'unauthorized' },
  { code: 'KMS.InvalidStateException', message: 'The key is pending deletion', kind: 'unauthorized' },
  { code: 'KMSKeyNotAccessibleFault', message: 'The KMS key is not accessible', kind: 'unauthorized' },
  { code: 'VolumeLimitExceeded', message: 'You have exceeded your maximum gp3 storage limit of 50 TiB in this region.', kind: 'limit-exceeded' },
  { code: 'AttachmentLimitExceeded', message: 'The instance i-0123456789abcdef0 has reached its attachment limit.', kind: 'limit-exceeded' },
  { code: 'MaxIOPSLimitExceeded', message: 'You have exceeded your maximum io1 IOPS limit.', kind: 'limit-exceeded' },
  { code: 'ResourceLimitExceeded', message: 'You have exceeded a resource limit.', kind: 'limit-exceeded' },
  { code: 'TagLimitExceeded', message: 'The maximum number of tags for resource vol-1 has been reached.', kind: 'limit-exceeded' },
  { code: 'VolumeModificationRateExceeded', message: "You've reached the maximum modification rate per volume limit.", kind: 'modification-cooldown' },
  { code: 'InvalidSnapshot.NotFound', message: "The snapshot 'snap-0123456789abcdef0' does not exist.", kind: 'invalid-request' },
  { code: 'InvalidZone.NotFound', message: "The zone 'us-east-1z' does not exist.", kind: 'invalid-request' },
  { code: 'InternalError', message: 'An internal error has occurred', kind: 'transient' },
  { code: 'InternalFailure', message: 'An internal failure has occurred', kind: 'transient' },
  { code: 'ServiceUnavailable', message: 'The service is unavailable', kind: 'transient' },
  { code: 'Unavailable', message: 'The server is overloaded and cannot handle the request', kind: 'transient' },
  { code: 'InsufficientVolumeCapacity', message: 'There is currently insufficient capacity to serve the request.', kind: 'transient' },
  { code: 'RequestTimeout', message: 'The request timed out', kind: 'transient' },
  { code: 'RequestExpired', message: 'Request has expired.', kind: 'transient' },
  { code: 'ConcurrentTagAccess', message: 'Another tag operation on this resource is in progress; retry when it has completed.', kind: 'transient' },
];

/**
 * Throttling as the SDK's retry strategy tells it (and so hands a mutating call's throttling back
 * to the engine, clients.ts): EC2's own code, the other codes of the SDK's list, whatever comes
 * with a 429.
 */
const THROTTLING: { code: string; message: string; status?: number }[] = [
  { code: 'RequestLimitExceeded', message: 'Request limit exceeded.', status: 503 },
  { code: 'RequestLimitExceeded', message: 'Request limit exceeded.' },
  { code: 'Client.RequestLimitExceeded', message: 'Request limit exceeded.', status: 503 },
  { code: 'EC2ThrottledException', message: 'Rate exceeded' },
  { code: 'Throttling', message: 'Rate exceeded' },
  { code: 'ThrottlingException', message: 'Rate exceeded' },
  { code: 'ThrottledException', message: 'Rate exceeded' },
  { code: 'RequestThrottled', message: 'Request throttled' },
  { code: 'RequestThrottledException', message: 'Request throttled' },
  { code: 'TooManyRequestsException', message: 'Too many requests' },
  { code: 'SlowDown', message: 'Please reduce your request rate.', status: 503 },
  { code: 'BandwidthLimitExceeded', message: 'Bandwidth limit exceeded' },
  { code: 'PriorRequestNotComplete', message: 'The request was rejected because a previous request is still in progress' },
  // A 429 is throttling whatever its code: one EC2 does not list, or one the table gives another kind.
  { code: 'SomethingNew', message: 'Too Many Requests', status: 429 },
  { code: 'InvalidParameterValue', message: 'Too Many Requests', status: 429 },
];

describe('EC2 throttling, as the SDK classifies it', () => {
  it.each(THROTTLING)('$code ($status) → throttled, which the engine waits out and slows its rate budget for', async ({ code, message, status }) => {
    const error = await realEc2Error(code, message, status);
    // The SDK's retry strategy calls it throttling too (the prefixed code aside, which it does not know).
    if (!code.startsWith('Client.')) expect(isThrottlingError(error as Parameters<typeof isThrottlingError>[0])).toBe(true);
    const mapped = toProviderError(error);
    expect(mapped).toMatchObject({ kind: 'throttled', code, message });
    // As for RequestLimitExceeded: every call waits without using an attempt (and its rate bucket slows).
    for (const call of ['CreateVolume', 'AttachVolume', 'DetachVolume', 'DeleteVolume', 'ModifyVolume', 'CreateTags', 'DeleteTags', 'Describe'] as const) {
      expect(classifyError(call, mapped).outcome).toBe('throttled');
    }
  });

  it('an error carrying the throttling trait is throttled; a 4xx EC2 did not explain further still is an invalid request', () => {
    expect(toProviderError({ name: 'SomethingNew', message: 'slow down', $fault: 'client', $retryable: { throttling: true }, $metadata: { httpStatusCode: 400 } })).toMatchObject({
      kind: 'throttled',
    });
    expect(toProviderError({ name: 'SomethingNew', message: 'no', $fault: 'client', $metadata: { httpStatusCode: 400 } })).toMatchObject({ kind: 'invalid-request' });
  });
});

describe('an EC2 error answered without a message', () => {
  it('says its code, not the SDK placeholder', async () => {
    const error = toProviderError(await realEc2Error('InvalidSnapshot.NotFound', ''));
    expect(error).toMatchObject({ kind: 'invalid-request', code: 'InvalidSnapshot.NotFound', message: 'InvalidSnapshot.NotFound (no message)' });
  });
});

describe('EC2 error code table, code by code', () => {
  it('covers every code of the table', () => {
    expect(new Set(TABLE.map(({ code }) => code))).toEqual(new Set(Object.keys(EC2_ERROR_KINDS)));
  });

  it.each(TABLE)('$code ($message) → $kind', async ({ code, message, status, kind }) => {
    expect(toProviderError(await realEc2Error(code, message, status))).toMatchObject({ kind, code, message });
    // The kind is the code's own, not one the HTTP status would give an unknown code.
    expect(toProviderError(await realEc2Error(code, message, 500)).kind).toBe(kind);
  });

  it.each(TABLE)('$code with a Client. or Server. prefix → $kind, the code looked up without it', async ({ code, message, status, kind }) => {
    for (const prefixed of [`Client.${code}`, `Server.${code}`]) {
      expect(toProviderError(await realEc2Error(prefixed, message, status))).toMatchObject({ kind, code: prefixed, message });
    }
  });
});

describe('errors that are not EC2 answers', () => {
  it('a network error code on an error the SDK named is transient, even when the SDK calls it a client fault', () => {
    const error = Object.assign(new Error('read ECONNRESET'), { name: 'X', code: 'ECONNRESET' });
    expect(toProviderError(error)).toMatchObject({ kind: 'transient', code: 'X', message: 'read ECONNRESET' });
    expect(toProviderError(Object.assign(error, { $fault: 'client' }))).toMatchObject({ kind: 'transient', code: 'X' });
  });

  it('a server fault with no HTTP status is transient, a client fault with none is an invalid request', () => {
    expect(toProviderError({ name: 'SomethingNew', message: 'server side', $fault: 'server' })).toMatchObject({ kind: 'transient', code: 'SomethingNew' });
    expect(toProviderError({ name: 'SomethingNew', message: 'client side', $fault: 'client' })).toMatchObject({ kind: 'invalid-request', code: 'SomethingNew' });
    // EC2 says the fault is its own: that counts before a 4xx status would make it the request's.
    expect(toProviderError({ name: 'SomethingNew', message: 'server side', $fault: 'server', $metadata: { httpStatusCode: 400 } })).toMatchObject({
      kind: 'transient',
    });
  });

  it.each(['ECONNRESET', 'ECONNREFUSED', 'ECONNABORTED', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH'])(
    "Node's %s (the request got no definite answer) is transient, even when called a client fault",
    (code) => {
      const error = Object.assign(new Error(`connect ${code} ec2.us-east-1.amazonaws.com`), { code, $fault: 'client' });
      expect(toProviderError(error)).toMatchObject({ kind: 'transient', code });
    },
  );

  it('an error with neither an HTTP status nor a fault nor a known name (a connection-level failure) is transient', () => {
    expect(toProviderError(new Error('socket closed'))).toMatchObject({ kind: 'transient', code: 'Unknown', message: 'socket closed' });
    expect(toProviderError('boom')).toMatchObject({ kind: 'transient', code: 'Unknown', message: 'boom' });
  });

  it.each(['AbortError', 'RequestTimeoutError', 'TimeoutError'])('%s (no answer from EC2) is transient', (name) => {
    // A 4xx with it would be an invalid request if the name did not count first.
    const error = Object.assign(new Error('Request aborted'), { name, $fault: 'client' });
    expect(toProviderError(error)).toMatchObject({ kind: 'transient', code: name });
  });
});
