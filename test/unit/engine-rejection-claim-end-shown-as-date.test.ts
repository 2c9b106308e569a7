import { describe, expect, it } from 'vitest';
import { judgeRecord } from '../../lib/engine/rejection.js';
import { newVolume, START } from './engine-fixtures.js';

const LEASE_MS = 180_000;
/** The last time a JavaScript date can name (ECMAScript: 8.64e15 ms after 1970-01-01, 275 760 years on). */
const LAST_DATE_MS = 8.64e15;

const reason = (expiresAt: number) => judgeRecord({ ...newVolume('data-1'), claim: { owner: 'executor-1', expiresAt } }, START, LEASE_MS).rejection;

describe('a claim written to end far beyond the lease', () => {
  it('is refused naming its end as a date up to the last time a date can name, as its number beyond it', () => {
    expect(new Date(LAST_DATE_MS).toISOString()).toBe('+275760-09-13T00:00:00.000Z');
    expect(reason(LAST_DATE_MS)).toMatch(/^claim\.expiresAt: ends at \+275760-09-13T00:00:00\.000Z, beyond the 180 s lease/);
    expect(reason(LAST_DATE_MS + 1)).toMatch(/^claim\.expiresAt: ends at 8640000000000001, beyond the 180 s lease/);
  });
});
