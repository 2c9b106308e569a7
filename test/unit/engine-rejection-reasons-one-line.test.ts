import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { judgeRecord } from '../../lib/engine/rejection.js';
import { newVolume, START } from './engine-fixtures.js';

const LEASE_MS = 180_000;
const AHEAD = new Date(START + 3_600_000).toISOString();

describe('the reasons a record is refused for', () => {
  it('are, for several faults, the reason for each alone, in one line separated as validation issues are (`a: …; b: …`)', () => {
    const volume = newVolume('data-1');
    const faults = {
      claim: (record: VolumeRecord): VolumeRecord => ({ ...record, claim: { owner: 'executor-1', expiresAt: START + 3_600_000 } }),
      updatedAt: (record: VolumeRecord): VolumeRecord => ({ ...record, status: { ...record.status, updatedAt: AHEAD } }),
      operationStartedAt: (record: VolumeRecord): VolumeRecord => ({ ...record, status: { ...record.status, operationStartedAt: AHEAD } }),
      modificationSentAt: (record: VolumeRecord): VolumeRecord => ({ ...record, modificationSentAt: AHEAD }),
    };
    const alone = Object.values(faults).map((fault) => judgeRecord(fault(volume), START, LEASE_MS).rejection);
    expect(alone.every((reason) => typeof reason === 'string')).toBe(true);
    const all = Object.values(faults).reduce((record, fault) => fault(record), volume);
    expect(judgeRecord(all, START, LEASE_MS).rejection).toBe(alone.join('; '));
    const timesOnly = [faults.updatedAt, faults.modificationSentAt].reduce((record, fault) => fault(record), volume);
    expect(judgeRecord(timesOnly, START, LEASE_MS).rejection).toBe(`${alone[1]}; ${alone[3]}`);
  });
});
