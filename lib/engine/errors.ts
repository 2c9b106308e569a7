/**
 * The one table that says what a provider error means for each EC2 call the executor makes.
 * Adapters map EC2 error codes to a `ProviderErrorKind` (lib/aws); this table maps the kind, per
 * call, to what the executor does with the record.
 */
import { ProviderError, type ProviderErrorKind } from './ports.js';
import type { MutatingAction } from './config.js';

/**
 * - `already-done`: the effect we wanted already holds (already attached / detached / deleted);
 *   counts as success.
 * - `retry`: may work next time; uses an attempt, backs off.
 * - `throttled`: RequestLimitExceeded (or another throttling answer, lib/aws/ec2-errors.ts); waits,
 *   slows the rate budget, never uses an attempt.
 * - `wait-for-prerequisite`: the other resource is not ready yet (volume still creating, still
 *   in use, instance not visible yet); uses an attempt so a prerequisite that never comes ends in
 *   a terminal error, and the status says what it waits for.
 * - `wait-for-modification`: another modification of the volume is under way; waits for it
 *   without using an attempt (modifications take minutes to hours, and always end).
 * - `wait-for-cooldown`: EC2 allows 4 modifications per volume in any 24 hours; waits until it
 *   allows the next one without using an attempt.
 * - `wait-for-snapshot`: the snapshot a volume is created from is not completed yet; waits without
 *   using an attempt (a large snapshot stays pending for hours), up to the operation's maximum age.
 * - `terminal`: retrying cannot help (bad parameters, AZ mismatch, token reuse); goes to `error`.
 */
export type ErrorOutcome =
  | 'already-done'
  | 'retry'
  | 'throttled'
  | 'wait-for-prerequisite'
  | 'wait-for-modification'
  | 'wait-for-cooldown'
  | 'wait-for-snapshot'
  | 'terminal';

/** CreateTags and DeleteTags: both change one volume's tags, so EC2's errors mean the same for both. */
const TAG_CALL_OUTCOMES: Readonly<Record<ProviderErrorKind, ErrorOutcome>> = {
  throttled: 'throttled',
  // The volume is gone (the executor forgets it, as for ModifyVolume).
  'not-found': 'terminal',
  'incorrect-state': 'retry',
  'already-attached': 'retry',
  'not-attached': 'retry',
  'device-in-use': 'retry',
  'zone-mismatch': 'terminal',
  'idempotency-mismatch': 'terminal',
  unauthorized: 'retry',
  'invalid-request': 'terminal',
  // TagLimitExceeded: more tags than EC2 allows on a volume; the same tags fail again.
  'limit-exceeded': 'terminal',
  'modification-in-progress': 'retry',
  'modification-cooldown': 'retry',
  transient: 'retry',
};

/** The EC2 calls the executor makes; describes share one row. */
export type ProviderCall = MutatingAction | 'Describe';

export const ERROR_OUTCOMES: Readonly<Record<ProviderCall, Readonly<Record<ProviderErrorKind, ErrorOutcome>>>> = {
  CreateVolume: {
    throttled: 'throttled',
    // Snapshot or KMS key not found.
    'not-found': 'terminal',
    // IncorrectState: the snapshot is still pending (or failed, which the age limit ends).
    'incorrect-state': 'wait-for-snapshot',
    'already-attached': 'retry',
    'not-attached': 'retry',
    'device-in-use': 'retry',
    'zone-mismatch': 'terminal',
    'idempotency-mismatch': 'terminal',
    // Permissions are often fixed while we wait; the attempt budget bounds it.
    unauthorized: 'retry',
    'invalid-request': 'terminal',
    'limit-exceeded': 'retry',
    'modification-in-progress': 'retry',
    'modification-cooldown': 'retry',
    transient: 'retry',
  },
  AttachVolume: {
    throttled: 'throttled',
    // Instance (or volume) not visible yet: eventual consistency right after launch.
    'not-found': 'wait-for-prerequisite',
    // Volume not available yet, or instance not running/stopped.
    'incorrect-state': 'wait-for-prerequisite',
    // A progress check tells whether it is attached to this instance or another one.
    'already-attached': 'already-done',
    'not-attached': 'retry',
    // The next attempt allocates a name afresh from the instance's current mappings.
    'device-in-use': 'retry',
    'zone-mismatch': 'terminal',
    'idempotency-mismatch': 'terminal',
    unauthorized: 'retry',
    'invalid-request': 'terminal',
    // Attachment slots may free up.
    'limit-exceeded': 'retry',
    'modification-in-progress': 'retry',
    'modification-cooldown': 'retry',
    transient: 'retry',
  },
  DetachVolume: {
    throttled: 'throttled',
    // Volume or instance gone: nothing is attached any more.
    'not-found': 'already-done',
    'incorrect-state': 'retry',
    'already-attached': 'retry',
    'not-attached': 'already-done',
    'device-in-use': 'retry',
    'zone-mismatch': 'terminal',
    'idempotency-mismatch': 'terminal',
    unauthorized: 'retry',
    'invalid-request': 'terminal',
    'limit-exceeded': 'retry',
    'modification-in-progress': 'retry',
    'modification-cooldown': 'retry',
    transient: 'retry',
  },
  DeleteVolume: {
    throttled: 'throttled',
    'not-found': 'already-done',
    // VolumeInUse: an attachment is still detaching.
    'incorrect-state': 'wait-for-prerequisite',
    'already-attached': 'wait-for-prerequisite',
    'not-attached': 'retry',
    'device-in-use': 'retry',
    'zone-mismatch': 'terminal',
    'idempotency-mismatch': 'terminal',
    unauthorized: 'retry',
    'invalid-request': 'terminal',
    'limit-exceeded': 'retry',
    'modification-in-progress': 'retry',
    'modification-cooldown': 'retry',
    transient: 'retry',
  },
  ModifyVolume: {
    throttled: 'throttled',
    // The volume is gone; a modification cannot bring it back (the executor forgets it, as a check would).
    'not-found': 'terminal',
    // VolumeInUse, IncorrectState: the volume is not in a state that allows modifying it yet.
    'incorrect-state': 'wait-for-prerequisite',
    'already-attached': 'retry',
    'not-attached': 'retry',
    'device-in-use': 'retry',
    'zone-mismatch': 'terminal',
    'idempotency-mismatch': 'terminal',
    unauthorized: 'retry',
    'invalid-request': 'terminal',
    // Account IOPS and storage limits.
    'limit-exceeded': 'retry',
    // IncorrectModificationState: the previous modification has not finished.
    'modification-in-progress': 'wait-for-modification',
    // VolumeModificationRateExceeded: modified 4 times within the last 24 hours.
    'modification-cooldown': 'wait-for-cooldown',
    transient: 'retry',
  },
  CreateTags: TAG_CALL_OUTCOMES,
  DeleteTags: TAG_CALL_OUTCOMES,
  Describe: {
    throttled: 'throttled',
    'not-found': 'retry',
    'incorrect-state': 'retry',
    'already-attached': 'retry',
    'not-attached': 'retry',
    'device-in-use': 'retry',
    'zone-mismatch': 'retry',
    'idempotency-mismatch': 'retry',
    unauthorized: 'retry',
    'invalid-request': 'retry',
    'limit-exceeded': 'retry',
    'modification-in-progress': 'retry',
    'modification-cooldown': 'retry',
    transient: 'retry',
  },
};

export interface ClassifiedError {
  outcome: ErrorOutcome;
  /** The provider's error code, or `InternalError` for something that is not a ProviderError. */
  code: string;
  message: string;
  /**
   * EC2 gave no definite answer (a fault on its side, a timeout, a lost connection): the call may
   * have taken effect all the same, so nothing may be forgotten that only the call's success
   * would make unnecessary (an attach's device name, say).
   */
  uncertain?: true;
  /** The call never went to EC2: the executor deferred it for want of a rate token. */
  notSent?: true;
  /** The provider's kind of error; absent for anything else (an unclassified failure, the executor's own). */
  kind?: ProviderErrorKind;
}

/**
 * Errors with which EC2 turns a CreateVolume down: no volume exists under its token, since EC2
 * answers a repeat of a request that made a volume with that volume. A new request may then
 * replace it (with the spec as it is now). Throttling and permission errors say nothing of the
 * token (they are checked first), and a timeout or a 5xx may come after the volume was made.
 */
const CREATE_REFUSALS: ReadonlySet<ProviderErrorKind> = new Set(['not-found', 'incorrect-state', 'zone-mismatch', 'invalid-request', 'limit-exceeded']);

export function createRefused(error: ClassifiedError): boolean {
  return error.kind !== undefined && CREATE_REFUSALS.has(error.kind);
}

/**
 * Whether EC2 will not repeat a CreateVolume: its token was used with other parameters
 * (IdempotentParameterMismatch), so the volume that token made, if any, cannot be learnt by
 * repeating the request, and repeating it again only fails again.
 */
export function createUnrepeatable(error: ClassifiedError): boolean {
  return error.kind === 'idempotency-mismatch';
}

/** EC2's words (its only sign) for a token whose volume is gone; the in-memory EBS model answers them too. */
const TOKEN_VOLUME_DELETED = /client token .* is associated with a resource that is already deleted/i;

/**
 * Whether EC2 will not repeat a CreateVolume because the volume its token made has been deleted
 * (outside, or by EC2 itself): nothing is left behind under the token.
 */
export function createTokenVolumeDeleted(error: ClassifiedError): boolean {
  return createUnrepeatable(error) && TOKEN_VOLUME_DELETED.test(error.message);
}

/** The message of anything thrown, for statuses and logs. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * EC2's encoded authorization failure message, which `sts:DecodeAuthorizationMessage` turns into
 * the whole policy evaluation (the roles, policies and conditions that refused the call).
 */
const ENCODED_AUTHORIZATION_FAILURE = /Encoded authorization failure message:\s*\S+/;

/**
 * `message` without EC2's encoded authorization failure message: a record's status, which any API
 * caller reads, says who was refused what; the executor's log keeps the encoded part for whoever
 * looks into the policies.
 *
 * @example withoutEncodedAuthorizationFailure('… the ec2:DeleteVolume action. Encoded authorization failure message: Zm9v')
 * // '… the ec2:DeleteVolume action. Encoded authorization failure message: in the executor\'s log'
 */
export function withoutEncodedAuthorizationFailure(message: string): string {
  return message.replace(ENCODED_AUTHORIZATION_FAILURE, "Encoded authorization failure message: in the executor's log");
}

/**
 * What `error`, thrown by `call`, means. Anything that is not a ProviderError (a network failure
 * the adapter did not classify, a bug) is retried: the attempt budget bounds it. Transient errors
 * and unclassified ones are `uncertain`.
 */
export function classifyError(call: ProviderCall, error: unknown): ClassifiedError {
  if (error instanceof ProviderError) {
    const message = withoutEncodedAuthorizationFailure(error.message);
    const classified: ClassifiedError = { outcome: ERROR_OUTCOMES[call][error.kind], code: error.code, message, kind: error.kind };
    return error.kind === 'transient' ? { ...classified, uncertain: true } : classified;
  }
  return { outcome: 'retry', code: 'InternalError', message: errorMessage(error), uncertain: true };
}
