import { describe, expect, it } from 'vitest';
import type { Status } from '../../lib/domain/records.js';
import { MAX_STATUS_MESSAGE_CHARS } from '../../lib/domain/status-message.js';
import {
  acceptedAgainStatus,
  attemptStatus,
  cooldownEndMs,
  cooldownWait,
  DYING_GIVE_UP_CHARS,
  dyingGiveUpMessage,
  failureStatus,
  madeDyingStatus,
  MODIFICATION_COOLDOWN_CODE,
  operationStart,
  retryRequested,
  sameStatus,
  settledStatus,
  SPEC_REJECTED_CODE,
  specRejectedStatus,
  successStatus,
  VOLUME_ERROR_DYING,
  VOLUME_RECORD_REMOVED_CODE,
  volumeRecordRemovedStatus,
  waitingOnRecordStatus,
  waitingStatus,
  withoutSpecRejection,
} from '../../lib/engine/status.js';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const NOW = T0 + 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();
const STARTED = iso(T0);

/** A status of an operation under way since T0 that failed once. */
const creatingFailedOnce: Status<string> = { state: 'creating', attempts: 1, updatedAt: iso(T0 + 1000), operationStartedAt: STARTED, code: 'InternalError' };

describe('the operation start', () => {
  it('is kept across retries and progress checks', () => {
    expect(operationStart(creatingFailedOnce, NOW)).toBe(STARTED);
    // Under way with no failure yet (a progress check).
    expect(operationStart({ state: 'modifying', attempts: 0, updatedAt: STARTED, operationStartedAt: STARTED }, NOW)).toBe(STARTED);
    // At rest after failed attempts (a retry of the same operation).
    expect(operationStart({ state: 'available', attempts: 2, updatedAt: STARTED, operationStartedAt: STARTED }, NOW)).toBe(STARTED);
  });

  it('is now once the last operation ended', () => {
    expect(operationStart({ state: 'available', attempts: 0, updatedAt: STARTED, operationStartedAt: STARTED }, NOW)).toBe(iso(NOW));
  });

  it('is kept between attempts and by a failure', () => {
    expect(attemptStatus(creatingFailedOnce, 'creating', NOW, 'trying').operationStartedAt).toBe(STARTED);
    expect(failureStatus(creatingFailedOnce, 'creating', NOW, { code: 'InternalError', message: 'x', attempts: 2 }).operationStartedAt).toBe(STARTED);
  });

  it('is carried by no state at rest, nor by pending', () => {
    expect(successStatus(creatingFailedOnce, 'pending', NOW).operationStartedAt).toBeUndefined();
    expect(successStatus({ state: 'detaching', attempts: 0, updatedAt: STARTED, operationStartedAt: STARTED }, 'detached', NOW).operationStartedAt).toBeUndefined();
    expect(successStatus(creatingFailedOnce, 'creating', NOW).operationStartedAt).toBe(STARTED);
  });
});

describe('a retry requested', () => {
  it("of an attachment carries no volume's failed modifications", () => {
    expect(retryRequested('attachment', 3, NOW)).toEqual({ status: { state: 'pending', attempts: 0, updatedAt: iso(NOW), message: 'retry requested' }, retriedGeneration: 3 });
    expect(retryRequested('volume', 3, NOW).failedModifications).toBeNull();
  });
});

describe('spec rejection', () => {
  it('carries its code, and goes (code and message) once it no longer holds', () => {
    const rejected = specRejectedStatus({ state: 'available', attempts: 0, updatedAt: STARTED }, 'available', T0, 'size must not shrink');
    expect(rejected).toEqual({ state: 'available', attempts: 0, updatedAt: STARTED, code: SPEC_REJECTED_CODE, message: 'size must not shrink' });
    expect(withoutSpecRejection(rejected, NOW)).toEqual({ state: 'available', attempts: 0, updatedAt: iso(NOW) });
    const other: Status<string> = { state: 'available', attempts: 0, updatedAt: STARTED, code: 'Other', message: 'm' };
    expect(withoutSpecRejection(other, NOW)).toBe(other);
  });
});

describe('settledStatus', () => {
  it("takes a dying record's retry off an error set back to alive, saying it gave up", () => {
    const message = dyingGiveUpMessage('DetachVolume: IncorrectState (failed 3 times so far)', NOW + 60_000);
    const status: Status<string> = { state: 'error', code: 'IncorrectState', message, attempts: 3, updatedAt: iso(T0), nextAttemptAt: iso(NOW + 60_000) };
    expect(settledStatus(status, NOW)).toEqual({ state: 'error', code: 'IncorrectState', message: 'DetachVolume: IncorrectState (gave up after 3 failed attempts)', attempts: 3, updatedAt: iso(NOW) });
  });

  it('takes off only the clause the give-up added, whatever the quoted text holds', () => {
    const quoted = 'EC2 said: x; being deleted: trying again at soon';
    const status: Status<string> = { state: 'error', code: 'X', message: dyingGiveUpMessage(quoted, NOW), attempts: 3, updatedAt: iso(T0), nextAttemptAt: iso(NOW) };
    expect(settledStatus(status, NOW).message).toBe(quoted);
  });

  it('the clause is as long as DYING_GIVE_UP_CHARS says', () => {
    expect(dyingGiveUpMessage('abc', NOW).length).toBe(3 + DYING_GIVE_UP_CHARS);
  });

  it("a volume in error set back to alive before its delete keeps its message within the bound", () => {
    const message = `${'EC2 said: '.padEnd(MAX_STATUS_MESSAGE_CHARS - VOLUME_ERROR_DYING.length, 'x')}${VOLUME_ERROR_DYING}`;
    const settled = settledStatus({ state: 'error', code: 'VolumeError', message, attempts: 0, updatedAt: iso(T0) }, NOW);
    expect(settled.message!.length).toBeLessThanOrEqual(MAX_STATUS_MESSAGE_CHARS);
    expect(settled.message!.startsWith('EC2 said: ')).toBe(true);
  });

  it('clears a wait no longer needed in attached (a refused detach of an attachment set back to alive)', () => {
    const status: Status<string> = { state: 'attached', code: 'IncorrectState', message: 'm', attempts: 2, updatedAt: iso(T0), nextAttemptAt: iso(NOW + 1000) };
    expect(settledStatus(status, NOW)).toEqual({ state: 'attached', attempts: 0, updatedAt: iso(NOW) });
  });

  it('leaves a pending record with a next attempt as it is', () => {
    const status: Status<string> = { state: 'pending', code: 'InternalError', message: 'm', attempts: 2, updatedAt: iso(T0), nextAttemptAt: iso(NOW + 1000) };
    expect(settledStatus(status, NOW)).toBe(status);
  });
});

describe('waitingStatus', () => {
  it('keeps the attempts and carries no operation start', () => {
    const status = waitingStatus({ ...creatingFailedOnce, state: 'available', attempts: 2 }, 'available', NOW, cooldownWait(NOW + 1000));
    expect(status.attempts).toBe(2);
    expect(status.operationStartedAt).toBeUndefined();
    expect(status.nextAttemptAt).toBe(iso(NOW + 1000));
  });
});

describe('cooldownEndMs', () => {
  const waiting = (state: string, extra: Partial<Status<string>> = {}): Status<string> => ({
    state,
    attempts: 0,
    updatedAt: iso(T0),
    code: MODIFICATION_COOLDOWN_CODE,
    nextAttemptAt: iso(NOW),
    ...extra,
  });

  it('reads the end of a rate-limit wait of a volume at rest', () => {
    expect(cooldownEndMs(waiting('available'))).toBe(NOW);
    expect(cooldownEndMs(waiting('in-use'))).toBe(NOW);
  });

  it('is undefined for any other status', () => {
    expect(cooldownEndMs(waiting('available', { code: 'InternalError' }))).toBeUndefined();
    expect(cooldownEndMs(waiting('modifying'))).toBeUndefined();
    expect(cooldownEndMs(waiting('available', { nextAttemptAt: 'not a time' }))).toBeUndefined();
    expect(cooldownEndMs(waiting('available', { nextAttemptAt: undefined }))).toBeUndefined();
  });
});

describe('waitingOnRecordStatus', () => {
  it('keeps the attempts, drops the code, and keeps the start of an operation under way', () => {
    expect(waitingOnRecordStatus({ ...creatingFailedOnce, nextAttemptAt: iso(NOW) }, NOW, 'waiting')).toEqual({
      state: 'creating',
      message: 'waiting',
      attempts: 1,
      updatedAt: iso(NOW),
      operationStartedAt: STARTED,
    });
  });

  it('ends the attempts when the wait lasts until a client retries the other record', () => {
    expect(waitingOnRecordStatus(creatingFailedOnce, NOW, 'waiting', true).attempts).toBe(0);
  });

  it('an error keeps the code it failed with', () => {
    expect(waitingOnRecordStatus({ state: 'error', code: 'VolumeInUse', attempts: 3, updatedAt: STARTED }, NOW, 'waiting').code).toBe('VolumeInUse');
  });

  it("a pending record's wait is no part of its operation's age", () => {
    expect(waitingOnRecordStatus({ state: 'pending', attempts: 1, updatedAt: STARTED, operationStartedAt: STARTED }, NOW, 'waiting').operationStartedAt).toBeUndefined();
  });
});

describe('volumeRecordRemovedStatus', () => {
  it('puts an attachment in error, also one in error already', () => {
    for (const state of ['attached', 'error'] as const)
      expect(volumeRecordRemovedStatus({ state, attempts: 0, updatedAt: STARTED }, NOW, 'gone')).toMatchObject({ state: 'error', code: VOLUME_RECORD_REMOVED_CODE, message: 'gone' });
  });
});

describe('sameStatus', () => {
  it('ignores when each was written, nothing else', () => {
    const a: Status<string> = { state: 'available', attempts: 0, updatedAt: iso(T0) };
    expect(sameStatus(a, { ...a, updatedAt: iso(NOW) })).toBe(true);
    expect(sameStatus(a, { ...a, message: 'm' })).toBe(false);
  });
});

describe('more statuses', () => {
  it('the rate-limit wait says the rule and when it tries again', () => {
    expect(cooldownWait(NOW).message).toBe(`EC2 allows 4 modifications per volume in any 24 hours; trying again at ${iso(NOW)}`);
  });

  it('a pending record made dying drops its failed attempts and next attempt: no operation is under way in EC2', () => {
    const previous: Status<string> = { state: 'pending', code: 'InternalError', message: 'm', attempts: 2, updatedAt: STARTED, operationStartedAt: STARTED, nextAttemptAt: iso(NOW) };
    expect(madeDyingStatus(previous, NOW)).toEqual({ state: 'pending', code: 'InternalError', message: 'm', attempts: 0, updatedAt: iso(NOW) });
  });

  it('an accepted call keeps the attempts only after one EC2 accepted and did not carry out', () => {
    const previous = (code: string): Status<string> => ({ state: 'deleting', code, attempts: 2, updatedAt: STARTED, operationStartedAt: STARTED });
    expect(acceptedAgainStatus(previous('VolumeNotDeleted'), 'deleting', NOW, 'm', 'VolumeNotDeleted').attempts).toBe(2);
    expect(acceptedAgainStatus(previous('InternalError'), 'deleting', NOW, 'm', 'VolumeNotDeleted').attempts).toBe(0);
  });

  it('a give-up clause alone comes off whole', () => {
    const status: Status<string> = { state: 'error', code: 'X', message: dyingGiveUpMessage('', NOW), attempts: 3, updatedAt: iso(T0), nextAttemptAt: iso(NOW) };
    expect(settledStatus(status, NOW).message).toBe('');
  });
});

describe('failures and give-ups', () => {
  it('a failure carries the attempt count it is given', () => {
    expect(failureStatus(creatingFailedOnce, 'creating', NOW, { code: 'InternalError', message: 'x', attempts: 5 }).attempts).toBe(5);
  });

  it("a dying record's give-up keeps its clause whole within the bound, however long the message", () => {
    const clause = `; being deleted: trying again at ${iso(NOW)}`;
    const message = dyingGiveUpMessage('EC2 said: '.padEnd(10_000, 'x'), NOW);
    expect(message.length).toBeLessThanOrEqual(MAX_STATUS_MESSAGE_CHARS);
    expect(message.endsWith(clause)).toBe(true);
  });
});

it('a record in error made dying drops its failed attempts: the delete or detach that follows has a budget of its own', () => {
  const previous: Status<string> = { state: 'error', code: 'InternalError', message: 'm', attempts: 3, updatedAt: STARTED, operationStartedAt: STARTED };
  expect(madeDyingStatus(previous, NOW)).toEqual({ state: 'error', code: 'InternalError', message: 'm', attempts: 0, updatedAt: iso(NOW) });
});

it("a pending record's wait on another record keeps its failed attempts", () => {
  expect(waitingOnRecordStatus({ state: 'pending', attempts: 2, updatedAt: STARTED }, NOW, 'waiting').attempts).toBe(2);
});
