import { describe, expect, it } from 'vitest';
import type { Status } from '../../lib/domain/records.js';
import { cooldownWait, failureStatus, pendingRetryAtMs, waitingStatus } from '../../lib/engine/status.js';

const NOW = Date.parse('2026-01-02T00:00:00.000Z');
const previous: Status<'available'> = { state: 'available', attempts: 0, updatedAt: new Date(NOW - 60_000).toISOString() };

describe("when a failed attempt's retry is due", () => {
  it('is the next attempt of a failure while it lies ahead', () => {
    const failed = failureStatus(previous, 'available', NOW, { code: 'InternalError', message: 'boom', attempts: 1, nextAttemptAtMs: NOW + 30_000 });
    expect(pendingRetryAtMs(failed, NOW)).toBe(NOW + 30_000);
    expect(pendingRetryAtMs(failed, NOW + 29_999)).toBe(NOW + 30_000);
  });

  it('is no longer pending once its time has come', () => {
    const failed = failureStatus(previous, 'available', NOW, { code: 'InternalError', message: 'boom', attempts: 1, nextAttemptAtMs: NOW + 30_000 });
    expect(pendingRetryAtMs(failed, NOW + 30_000)).toBeUndefined();
    expect(pendingRetryAtMs(failed, NOW + 30_001)).toBeUndefined();
  });

  it("is none for a wait for EC2's modification limit, which is no failed attempt", () => {
    const waiting = waitingStatus(previous, 'available', NOW, cooldownWait(NOW + 3_600_000));
    expect(waiting.nextAttemptAt).toBe(new Date(NOW + 3_600_000).toISOString());
    expect(pendingRetryAtMs(waiting, NOW)).toBeUndefined();
  });

  it('is none when no next attempt is written', () => {
    expect(pendingRetryAtMs(previous, NOW)).toBeUndefined();
  });
});
