import { describe, expect, it } from 'vitest';
import type { Status } from '../../lib/domain/records.js';
import { operationStartMs } from '../../lib/engine/status.js';

const NOW = Date.parse('2026-01-02T00:00:00.000Z');

describe("reading a status's operation start", () => {
  it('is the start written, in epoch ms', () => {
    const status: Status<'creating'> = { state: 'creating', attempts: 0, updatedAt: new Date(NOW).toISOString(), operationStartedAt: new Date(NOW - 5_000).toISOString() };
    expect(operationStartMs(status)).toBe(NOW - 5_000);
  });

  it('is none, not a number that is no time, for a status with no operation under way', () => {
    expect(operationStartMs({ state: 'available', attempts: 0, updatedAt: new Date(NOW).toISOString() })).toBeUndefined();
  });
});
