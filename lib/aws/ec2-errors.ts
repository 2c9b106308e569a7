/**
 * The one place where EC2 error codes become the engine's provider error kinds
 * (lib/engine/ports.ts). Everything in lib/aws that calls EC2 passes its errors through
 * `toProviderError`, so the engine never sees an EC2 code it has to interpret itself.
 */
import { isThrottlingError } from '@smithy/core/retry';
import { ProviderError, type ProviderErrorKind } from '../engine/ports.js';

type Rule = ProviderErrorKind | ((message: string) => ProviderErrorKind);

/**
 * EC2 error code → kind. Some codes mean different things depending on the situation, which EC2
 * only tells in the message; those rules read it. A code may also come with a `Client.` or
 * `Server.` prefix (the EC2 API reference names the permission error `Client.UnauthorizedOperation`);
 * it is looked up without it.
 *
 * Rate limiting is not in the table: it is what the SDK's own classification calls throttling
 * (`isThrottlingError`: `RequestLimitExceeded`, `EC2ThrottledException`, `Throttling`,
 * `RequestThrottled` and the other codes of its list, any HTTP 429, the throttling trait), the
 * same test by which the SDK's retry strategy hands a mutating call's throttling back
 * (clients.ts). It comes first, whatever the code's entry here.
 */
export const EC2_ERROR_KINDS: Readonly<Record<string, Rule>> = {
  // The volume or instance does not exist. A malformed id names nothing that could ever exist,
  // so it is "not found" too (a detach of such an attachment is then simply done).
  'InvalidVolume.NotFound': 'not-found',
  'InvalidVolumeID.Malformed': 'not-found',
  'InvalidInstanceID.NotFound': 'not-found',
  'InvalidInstanceID.Malformed': 'not-found',

  // DetachVolume of a volume attached nowhere: "Volume 'vol-…' is in the 'available' state."
  IncorrectState: (message) => (/is in the 'available' state/i.test(message) ? 'not-attached' : 'incorrect-state'),
  'InvalidAttachment.NotFound': 'not-attached',
  IncorrectInstanceState: 'incorrect-state',
  // "Cannot modify volume vol-… as it is in 'optimizing' state. Try again later."
  IncorrectModificationState: 'modification-in-progress',
  // AttachVolume: "vol-… is already attached to an instance"; DeleteVolume / ModifyVolume of an
  // attached volume also say VolumeInUse, and those must wait rather than count as attached.
  VolumeInUse: (message) => (/already attached/i.test(message) ? 'already-attached' : 'incorrect-state'),

  'InvalidVolume.ZoneMismatch': 'zone-mismatch',
  // "Invalid value '/dev/sdf' for unixDevice. Attachment point /dev/sdf is already in use"
  InvalidParameterValue: (message) => (/already in use/i.test(message) ? 'device-in-use' : 'invalid-request'),
  // The code EC2's error reference gives AttachVolume for a device name the instance already uses.
  'InvalidDevice.InUse': 'device-in-use',
  IdempotentParameterMismatch: 'idempotency-mismatch',

  UnauthorizedOperation: 'unauthorized',
  AccessDenied: 'unauthorized',
  AccessDeniedException: 'unauthorized',
  AuthFailure: 'unauthorized',
  // Credentials that expired or a signature off by clock skew: refused before anything was done,
  // and put right by the SDK's next credentials or clock correction, so retried, never terminal.
  ExpiredToken: 'unauthorized',
  ExpiredTokenException: 'unauthorized',
  InvalidClientTokenId: 'unauthorized',
  SignatureDoesNotMatch: 'unauthorized',
  'InvalidKMSKey.InvalidState': 'unauthorized',
  'KMS.DisabledException': 'unauthorized',
  'KMS.NotFoundException': 'unauthorized',
  'KMS.InvalidStateException': 'unauthorized',
  KMSKeyNotAccessibleFault: 'unauthorized',

  VolumeLimitExceeded: 'limit-exceeded',
  AttachmentLimitExceeded: 'limit-exceeded',
  MaxIOPSLimitExceeded: 'limit-exceeded',
  ResourceLimitExceeded: 'limit-exceeded',
  // CreateVolume or CreateTags: more than 50 tags on the resource.
  TagLimitExceeded: 'limit-exceeded',
  // ModifyVolume: the volume was modified 4 times within 24 hours ("You've reached the maximum modification rate per volume limit …").
  VolumeModificationRateExceeded: 'modification-cooldown',

  // Wrong parameters that name other resources: not the volume or instance being "not found".
  'InvalidSnapshot.NotFound': 'invalid-request',
  'InvalidZone.NotFound': 'invalid-request',

  // EC2-side faults and capacity that comes back: retry.
  InternalError: 'transient',
  InternalFailure: 'transient',
  ServiceUnavailable: 'transient',
  Unavailable: 'transient',
  InsufficientVolumeCapacity: 'transient',
  RequestTimeout: 'transient',
  RequestExpired: 'transient',
  // CreateTags / DeleteTags while another tag change of the same volume is under way (someone
  // else's, or this system's removals then additions): EC2 asks to retry once it is done.
  ConcurrentTagAccess: 'transient',
};

/** Node and SDK errors that mean the request never got a definite answer. */
const NETWORK_ERROR_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);
const TIMEOUT_ERROR_NAMES = new Set(['TimeoutError', 'RequestTimeoutError', 'AbortError']);

interface SdkErrorShape {
  name?: unknown;
  Code?: unknown;
  code?: unknown;
  message?: unknown;
  $fault?: unknown;
  $metadata?: { httpStatusCode?: unknown };
  $retryable?: { throttling?: unknown };
}

/** Classifies any error thrown by an EC2 call (SDK service exception, timeout, network error). */
export function toProviderError(error: unknown): ProviderError {
  if (error instanceof ProviderError) return error;
  const shape: SdkErrorShape = typeof error === 'object' && error !== null ? (error as SdkErrorShape) : {};
  const message = typeof shape.message === 'string' ? shape.message : String(error);
  const code =
    typeof shape.Code === 'string'
      ? shape.Code
      : typeof shape.name === 'string' && shape.name !== 'Error'
        ? shape.name
        : typeof shape.code === 'string'
          ? shape.code
          : 'Unknown';
  // The SDK's placeholder for an error without a message (moto leaves some out): the code says more.
  const said = message === '' || message === SDK_NO_MESSAGE ? `${code} (no message)` : message;
  return new ProviderError(classify(code, message, shape), code, said);
}

/** The message the SDK gives an error whose answer carried none. */
const SDK_NO_MESSAGE = 'UnknownError';

/** `Client.` / `Server.`: whose fault EC2 says it is, which the code's kind already tells. */
const FAULT_PREFIX = /^(?:Client|Server)\./;

function classify(code: string, message: string, shape: SdkErrorShape): ProviderErrorKind {
  const bare = code.replace(FAULT_PREFIX, '');
  const status = typeof shape.$metadata?.httpStatusCode === 'number' ? shape.$metadata.httpStatusCode : undefined;
  // Rate limiting: back off, never an attempt. Asked of the code without its prefix.
  const throttling = shape.$retryable?.throttling === true ? { throttling: true } : undefined;
  if (isThrottlingError({ name: bare, message, $metadata: { httpStatusCode: status }, ...(throttling ? { $retryable: throttling } : {}) })) return 'throttled';
  const rule = EC2_ERROR_KINDS[bare];
  if (rule !== undefined) return typeof rule === 'function' ? rule(message) : rule;
  if (TIMEOUT_ERROR_NAMES.has(code) || NETWORK_ERROR_CODES.has(code)) return 'transient';
  if (typeof shape.code === 'string' && NETWORK_ERROR_CODES.has(shape.code)) return 'transient';
  if (status !== undefined && status >= 500) return 'transient';
  if (shape.$fault === 'server') return 'transient';
  // A 4xx EC2 did not explain further: the request itself is wrong, retrying cannot help.
  if ((status !== undefined && status >= 400) || shape.$fault === 'client') return 'invalid-request';
  // No answer from EC2 at all (connection-level failure the SDK did not name): retry.
  return 'transient';
}

