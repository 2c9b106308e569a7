import { describe, expect, it } from 'vitest';
import { ERROR_OUTCOMES, classifyError, createRefused, createUnrepeatable, withoutEncodedAuthorizationFailure, type ErrorOutcome, type ProviderCall } from '../../lib/engine/errors.js';
import { PROVIDER_ERROR_KINDS, ProviderError, type ProviderErrorKind } from '../../lib/engine/ports.js';

const done = 'already-done';
const retry = 'retry';
const throttled = 'throttled';
const prereq = 'wait-for-prerequisite';
const modif = 'wait-for-modification';
const cooldown = 'wait-for-cooldown';
const snapshot = 'wait-for-snapshot';
const fatal = 'terminal';

const CALLS = ['CreateVolume', 'AttachVolume', 'DetachVolume', 'DeleteVolume', 'ModifyVolume', 'CreateTags', 'DeleteTags', 'Describe'] as const satisfies readonly ProviderCall[];

/**
 * What each kind of error does for each call, one column per call in the order of CALLS:
 * CreateVolume, AttachVolume, DetachVolume, DeleteVolume, ModifyVolume, CreateTags, DeleteTags, Describe.
 */
const EXPECTED: Record<ProviderErrorKind, readonly ErrorOutcome[]> = {
  // Never an attempt, whatever the call.
  throttled: [throttled, throttled, throttled, throttled, throttled, throttled, throttled, throttled],
  // Create: snapshot or KMS key missing. Attach: instance not visible yet. Detach, delete: nothing left to do.
  // Modify, tags: the volume is gone. Describe: described again.
  'not-found': [fatal, prereq, done, done, fatal, fatal, fatal, retry],
  // Snapshot pending, volume not available / instance not running, volume still in use, volume not modifiable yet.
  'incorrect-state': [snapshot, prereq, retry, prereq, prereq, retry, retry, retry],
  // Attach: attached already (a check tells to which instance). Delete: still attached, so wait.
  'already-attached': [retry, done, retry, prereq, retry, retry, retry, retry],
  // Detach: nothing attached any more.
  'not-attached': [retry, retry, done, retry, retry, retry, retry, retry],
  // Attach: the next attempt allocates another device name.
  'device-in-use': [retry, retry, retry, retry, retry, retry, retry, retry],
  'zone-mismatch': [fatal, fatal, fatal, fatal, fatal, fatal, fatal, retry],
  'idempotency-mismatch': [fatal, fatal, fatal, fatal, fatal, fatal, fatal, retry],
  // Permissions are often fixed while we wait; the attempt budget bounds it.
  unauthorized: [retry, retry, retry, retry, retry, retry, retry, retry],
  'invalid-request': [fatal, fatal, fatal, fatal, fatal, fatal, fatal, retry],
  // Account limits and attachment slots free up; EC2's tag limit is met again by the same tags.
  'limit-exceeded': [retry, retry, retry, retry, retry, fatal, fatal, retry],
  'modification-in-progress': [retry, retry, retry, retry, modif, retry, retry, retry],
  'modification-cooldown': [retry, retry, retry, retry, cooldown, retry, retry, retry],
  // Insufficient capacity, EC2 faults, timeouts.
  transient: [retry, retry, retry, retry, retry, retry, retry, retry],
};

describe('error table', () => {
  it('covers exactly the calls and kinds there are', () => {
    expect(Object.keys(ERROR_OUTCOMES).sort()).toEqual([...CALLS].sort());
    expect(Object.keys(EXPECTED).sort()).toEqual([...PROVIDER_ERROR_KINDS].sort());
    for (const call of CALLS) expect(Object.keys(ERROR_OUTCOMES[call]).sort(), call).toEqual([...PROVIDER_ERROR_KINDS].sort());
  });

  it.each(CALLS.map((call, column) => ({ call, column })))('$call: every kind of error has its outcome', ({ call, column }) => {
    const actual = Object.fromEntries(PROVIDER_ERROR_KINDS.map((kind) => [kind, classifyError(call, new ProviderError(kind, 'Code', 'message')).outcome]));
    const expected = Object.fromEntries(PROVIDER_ERROR_KINDS.map((kind) => [kind, EXPECTED[kind][column]]));
    expect(actual).toEqual(expected);
  });

  it('treats throttling as throttling everywhere, never as a failed attempt', () => {
    for (const row of Object.values(ERROR_OUTCOMES)) expect(row.throttled).toBe('throttled');
  });

  it('counts already attached / detached / deleted as done', () => {
    expect(ERROR_OUTCOMES.AttachVolume['already-attached']).toBe('already-done');
    expect(ERROR_OUTCOMES.DetachVolume['not-attached']).toBe('already-done');
    expect(ERROR_OUTCOMES.DetachVolume['not-found']).toBe('already-done');
    expect(ERROR_OUTCOMES.DeleteVolume['not-found']).toBe('already-done');
  });

  it('waits for prerequisites and stops on what retrying cannot fix', () => {
    expect(ERROR_OUTCOMES.AttachVolume['incorrect-state']).toBe('wait-for-prerequisite');
    expect(ERROR_OUTCOMES.DeleteVolume['incorrect-state']).toBe('wait-for-prerequisite');
    expect(ERROR_OUTCOMES.AttachVolume['zone-mismatch']).toBe('terminal');
    expect(ERROR_OUTCOMES.CreateVolume['idempotency-mismatch']).toBe('terminal');
    expect(ERROR_OUTCOMES.CreateVolume['invalid-request']).toBe('terminal');
    expect(ERROR_OUTCOMES.CreateVolume.transient).toBe('retry');
  });

  it("waits for a modification under way and for EC2's limit on modifications without an attempt; elsewhere they are retries", () => {
    expect(ERROR_OUTCOMES.ModifyVolume['modification-in-progress']).toBe('wait-for-modification');
    expect(ERROR_OUTCOMES.ModifyVolume['modification-cooldown']).toBe('wait-for-cooldown');
    expect(ERROR_OUTCOMES.ModifyVolume['limit-exceeded']).toBe('retry');
    for (const call of ['CreateVolume', 'AttachVolume', 'DetachVolume', 'DeleteVolume', 'Describe'] as const) {
      expect(ERROR_OUTCOMES[call]['modification-in-progress'], call).toBe('retry');
      expect(ERROR_OUTCOMES[call]['modification-cooldown'], call).toBe('retry');
    }
  });

  it("ends a tag change on a vanished volume and on EC2's tag limit, which the same tags meet again", () => {
    for (const call of ['CreateTags', 'DeleteTags'] as const) {
      expect(ERROR_OUTCOMES[call]['not-found'], call).toBe('terminal');
      expect(ERROR_OUTCOMES[call]['limit-exceeded'], call).toBe('terminal');
      expect(ERROR_OUTCOMES[call].transient, call).toBe('retry');
    }
  });

  it('leaves only the encoded authorization failure message out of an error message', () => {
    expect(withoutEncodedAuthorizationFailure('not authorized to perform: ec2:AttachVolume. Encoded authorization failure message: AbC-_123= ')).toBe(
      "not authorized to perform: ec2:AttachVolume. Encoded authorization failure message: in the executor's log ",
    );
    expect(withoutEncodedAuthorizationFailure('vol-1 is in use')).toBe('vol-1 is in use');
    expect(classifyError('AttachVolume', new ProviderError('unauthorized', 'UnauthorizedOperation', 'No. Encoded authorization failure message: xyz')).message).toBe(
      "No. Encoded authorization failure message: in the executor's log",
    );
  });

  it('classifies provider errors with their code and anything else as a retry', () => {
    expect(classifyError('DeleteVolume', new ProviderError('incorrect-state', 'VolumeInUse', 'vol-1 is in use'))).toEqual({
      outcome: 'wait-for-prerequisite',
      code: 'VolumeInUse',
      message: 'vol-1 is in use',
      kind: 'incorrect-state',
    });
    expect(classifyError('CreateVolume', new TypeError('socket hang up'))).toEqual({
      outcome: 'retry',
      code: 'InternalError',
      message: 'socket hang up',
      uncertain: true,
    });
  });

  it('marks as uncertain only errors that leave open whether EC2 acted: faults on its side, timeouts, unclassified failures', () => {
    expect(classifyError('AttachVolume', new ProviderError('transient', 'RequestTimeout', 'timed out')).uncertain).toBe(true);
    expect(classifyError('AttachVolume', new Error('socket hang up')).uncertain).toBe(true);
    for (const kind of PROVIDER_ERROR_KINDS.filter((k) => k !== 'transient'))
      expect(classifyError('AttachVolume', new ProviderError(kind, 'Code', 'refused')).uncertain, kind).toBeUndefined();
  });

  it('a CreateVolume turned down leaves nothing under its token; a throttle, a permission error or a lost answer says nothing of it', () => {
    const refusal = (kind: ProviderErrorKind) => createRefused(classifyError('CreateVolume', new ProviderError(kind, 'Code', 'message')));
    for (const kind of ['not-found', 'incorrect-state', 'zone-mismatch', 'invalid-request', 'limit-exceeded'] as const) expect(refusal(kind)).toBe(true);
    for (const kind of ['throttled', 'unauthorized', 'transient', 'idempotency-mismatch'] as const) expect(refusal(kind)).toBe(false);
    expect(createRefused(classifyError('CreateVolume', new TypeError('socket hang up')))).toBe(false);
  });

  it('a CreateVolume whose token EC2 knows with other parameters cannot be repeated; nothing else says so', () => {
    for (const kind of PROVIDER_ERROR_KINDS)
      expect(createUnrepeatable(classifyError('CreateVolume', new ProviderError(kind, 'Code', 'message'))), kind).toBe(kind === 'idempotency-mismatch');
  });
});
