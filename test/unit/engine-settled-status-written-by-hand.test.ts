import { describe, expect, it } from 'vitest';
import type { Status } from '../../lib/domain/records.js';
import { settledStatus } from '../../lib/engine/status.js';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const NOW = T0 + 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();

describe('settledStatus of an error with a next attempt written into the table by hand', () => {
  it('drops the next attempt and keeps a message that names none as it is', () => {
    const status: Status<string> = { state: 'error', code: 'X', message: 'set by hand', attempts: 2, updatedAt: iso(T0), nextAttemptAt: iso(NOW + 60_000) };
    expect(settledStatus(status, NOW)).toEqual({ state: 'error', code: 'X', message: 'set by hand', attempts: 2, updatedAt: iso(NOW) });
  });

  it('drops the next attempt of one without a message, writing none', () => {
    const status: Status<string> = { state: 'error', attempts: 2, updatedAt: iso(T0), nextAttemptAt: iso(NOW + 60_000) };
    expect(settledStatus(status, NOW)).toEqual({ state: 'error', attempts: 2, updatedAt: iso(NOW) });
  });
});
