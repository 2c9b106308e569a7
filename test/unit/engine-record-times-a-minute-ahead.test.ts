import { describe, expect, it } from 'vitest';
import { judgeRecord } from '../../lib/engine/rejection.js';
import { newVolume, START } from './engine-fixtures.js';

const LEASE_MS = 180_000;
const iso = (ms: number) => new Date(ms).toISOString();

describe('a record time ahead of the clock', () => {
  it("is taken up to one minute ahead (another function's clock may run ahead), refused beyond it", () => {
    const status = newVolume('data-1').status;
    const judged = (updatedAtMs: number) => judgeRecord({ ...newVolume('data-1'), status: { ...status, updatedAt: iso(updatedAtMs) } }, START, LEASE_MS).rejection;
    expect(judged(START + 45_000)).toBeUndefined();
    expect(judged(START + 60_000)).toBeUndefined();
    expect(judged(START + 60_001)).toMatch(/^status\.updatedAt: .* is ahead of the clock/);
  });
});
