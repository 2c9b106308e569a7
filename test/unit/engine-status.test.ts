import { describe, expect, it } from 'vitest';
import type { Status } from '../../lib/domain/records.js';
import { MAX_STATUS_MESSAGE_CHARS } from '../../lib/domain/status-message.js';
import {
  attemptStatus,
  continuedStatus,
  failureStatus,
  invalidRecordStatus,
  madeDyingStatus,
  specRejectedStatus,
  successStatus,
  underWayStatus,
  volumeRecordRemovedStatus,
  waitingOnRecordStatus,
  waitingStatus,
} from '../../lib/engine/status.js';
import { START } from './engine-fixtures.js';

describe('status messages', () => {
  it('every status the system builds holds a message of at most the bound, whatever the reason it is given', () => {
    const huge = 'EC2 said: '.padEnd(300_000, 'x');
    const previous: Status<'pending'> = { state: 'pending', attempts: 2, updatedAt: new Date(START).toISOString() };
    const built = [
      successStatus(previous, 'creating', START, huge),
      continuedStatus(previous, 'creating', START, huge),
      underWayStatus(previous, 'creating', START, huge),
      attemptStatus(previous, 'creating', START, huge),
      specRejectedStatus(previous, 'pending', START, huge),
      failureStatus(previous, 'pending', START, { code: 'InternalError', message: huge, attempts: 3 }),
      waitingStatus(previous, 'pending', START, { code: 'IncorrectModificationState', message: huge, nextAttemptAtMs: START + 1000 }),
      waitingOnRecordStatus(previous, START, huge),
      volumeRecordRemovedStatus(previous, START, huge),
      invalidRecordStatus(START, huge),
    ];
    for (const status of built) expect(status.message).toBe(`EC2 said: ${'x'.repeat(MAX_STATUS_MESSAGE_CHARS - 11)}…`);
    // A message within the bound is kept as it is.
    expect(failureStatus(previous, 'pending', START, { code: 'InternalError', message: 'boom', attempts: 3 }).message).toBe('boom');
  });
});

describe('a call EC2 accepted', () => {
  const at = new Date(START).toISOString();

  it('keeps the failed attempts of its operation, which has not succeeded yet: a failure EC2 reports later counts on', () => {
    const failedTwice: Status<'attaching'> = { state: 'attaching', code: 'InternalError', attempts: 2, updatedAt: at, operationStartedAt: at };
    expect(continuedStatus(failedTwice, 'attaching', START + 5000, 'attaching as /dev/sdf')).toEqual({
      state: 'attaching',
      attempts: 2,
      message: 'attaching as /dev/sdf',
      updatedAt: new Date(START + 5000).toISOString(),
      operationStartedAt: new Date(START + 5000).toISOString(),
    });
    // Done: the attempts go.
    expect(successStatus(failedTwice, 'attached', START + 9000).attempts).toBe(0);
  });

  it('starting another operation (a detach after an attach that gave up, a delete after failed tag changes) leaves the attempts of the one before behind', () => {
    const gaveUp: Status<'error'> = { state: 'error', code: 'AttachmentNotFound', attempts: 8, updatedAt: at, operationStartedAt: at };
    expect(successStatus(gaveUp, 'detaching', START + 5000, 'detaching', true)).toMatchObject({ state: 'detaching', attempts: 0 });
    const tagsFailing: Status<'available'> = { state: 'available', code: 'InternalError', attempts: 7, updatedAt: at, operationStartedAt: at };
    expect(successStatus(tagsFailing, 'deleting', START + 5000, 'deleting', true)).toMatchObject({ state: 'deleting', attempts: 0 });
  });

  it('still under way keeps the attempts of an operation under way, and a resting state none', () => {
    const looked: Status<'attaching'> = { state: 'attaching', code: 'InternalError', attempts: 3, updatedAt: at, operationStartedAt: at };
    expect(underWayStatus(looked, 'attaching', START + 5000, 'attaching as /dev/sdf')).toMatchObject({ state: 'attaching', attempts: 3, operationStartedAt: at });
    expect(underWayStatus(looked, 'attaching', START + 5000, 'x').code).toBeUndefined();
    const inUse: Status<'in-use'> = { state: 'in-use', code: 'InternalError', attempts: 3, updatedAt: at };
    expect(underWayStatus(inUse, 'in-use', START + 5000, 'attached to instances no record knows')).toMatchObject({ state: 'in-use', attempts: 0 });
  });
});

describe('a record its client makes dying', () => {
  const at = new Date(START).toISOString();

  it('leaves the failed attempts of the live operation behind, with their next attempt and start; the code and message still say what failed', () => {
    const failing: Status<'available'> = { state: 'available', code: 'InternalError', message: 'failed', attempts: 3, updatedAt: at, operationStartedAt: at, nextAttemptAt: at };
    expect(madeDyingStatus(failing, START + 5000)).toEqual({ state: 'available', code: 'InternalError', message: 'failed', attempts: 0, updatedAt: new Date(START + 5000).toISOString() });
  });

  it('writes nothing for a status without failed attempts, nor for an operation under way in EC2, whose failures count on', () => {
    expect(madeDyingStatus({ state: 'in-use', attempts: 0, updatedAt: at }, START)).toBeUndefined();
    expect(madeDyingStatus({ state: 'creating', code: 'InternalError', attempts: 2, updatedAt: at, operationStartedAt: at }, START)).toBeUndefined();
  });
});
