import { describe, expect, it } from 'vitest';
import type { Status } from '../../lib/domain/records.js';
import { attemptStatus } from '../../lib/engine/status.js';

const NOW = Date.parse('2026-01-02T00:00:00.000Z');
const FIRST = new Date(NOW - 20 * 60_000).toISOString();

describe('a status written between attempts', () => {
  it("keeps a pending record's failed attempts and its operation's start, so the age limit counts from the first attempt", () => {
    const previous: Status<'pending'> = {
      state: 'pending',
      code: 'InternalError',
      message: 'boom',
      attempts: 2,
      nextAttemptAt: new Date(NOW).toISOString(),
      updatedAt: new Date(NOW - 60_000).toISOString(),
      operationStartedAt: FIRST,
    };
    const status = attemptStatus(previous, 'pending', NOW, 'creating the volume');
    expect(status).toEqual({ state: 'pending', message: 'creating the volume', attempts: 2, updatedAt: new Date(NOW).toISOString(), operationStartedAt: FIRST });
  });

  it('keeps them in a state at rest too (a modification of a volume in use tried again)', () => {
    const previous: Status<'in-use'> = { state: 'in-use', code: 'InternalError', attempts: 1, updatedAt: new Date(NOW - 60_000).toISOString(), operationStartedAt: FIRST };
    const status = attemptStatus(previous, 'in-use', NOW, 'modifying the volume');
    expect(status.attempts).toBe(1);
    expect(status.operationStartedAt).toBe(FIRST);
  });

  it("starts the operation's age now for a first attempt", () => {
    const previous: Status<'pending'> = { state: 'pending', attempts: 0, updatedAt: new Date(NOW - 60_000).toISOString() };
    expect(attemptStatus(previous, 'pending', NOW, 'creating the volume').operationStartedAt).toBe(new Date(NOW).toISOString());
  });
});
