import { describe, expect, it } from 'vitest';
import type { Status } from '../../lib/domain/records.js';
import { settledStatus, VOLUME_ERROR_DYING } from '../../lib/engine/status.js';

const NOW = Date.parse('2026-01-02T00:00:00.000Z');
const EARLIER = new Date(NOW - 60_000).toISOString();

describe('the status of a record the planner finds nothing to do for', () => {
  it('drops the retry a volume in use no longer needs (a modification whose spec the client put back)', () => {
    const status: Status<'in-use'> = {
      state: 'in-use',
      code: 'InternalError',
      message: 'boom',
      attempts: 1,
      nextAttemptAt: new Date(NOW + 60_000).toISOString(),
      updatedAt: EARLIER,
      operationStartedAt: EARLIER,
    };
    expect(settledStatus(status, NOW)).toEqual({ state: 'in-use', attempts: 0, updatedAt: new Date(NOW).toISOString() });
  });

  it('leaves a volume at rest whose message only reads like a VolumeError on a dying record as it is', () => {
    const status: Status<'available'> = { state: 'available', message: `note${VOLUME_ERROR_DYING}`, attempts: 0, updatedAt: EARLIER };
    expect(settledStatus(status, NOW)).toBe(status);
  });
});
