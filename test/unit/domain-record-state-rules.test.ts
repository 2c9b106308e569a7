/**
 * The rules of a volume record beyond its fields' own: the states written only with the EC2
 * volume's id, and the place a volume still to be created needs, alive or dying.
 */
import { describe, expect, it } from 'vitest';
import { parseRecord } from '../../lib/domain/validation.js';
import { newVolume } from './engine-fixtures.js';

function issuesOf(record: unknown) {
  const parsed = parseRecord(record);
  return parsed.ok ? [] : parsed.issues;
}

describe('states the system writes only with the EC2 volume id', () => {
  it.each(['available', 'in-use', 'modifying', 'deleting'])('refuses a record in %s without one, and reads it with one', (state) => {
    const status = { state, attempts: 0, updatedAt: '' };
    expect(issuesOf(newVolume('v1', { status } as never))).toEqual([
      { path: 'ebsVolumeId', message: `is required in state ${state}, which the system writes only with the EC2 volume's id` },
    ]);
    expect(issuesOf(newVolume('v1', { status, ebsVolumeId: 'vol-0123456789abcdef0' } as never))).toEqual([]);
  });

  it.each(['pending', 'creating', 'error'])('reads a record in %s without one', (state) => {
    expect(issuesOf(newVolume('v1', { status: { state, attempts: 0, updatedAt: '' } } as never))).toEqual([]);
  });
});

describe('the place of a volume still to be created', () => {
  const unplaced = { kind: 'volume', volumeId: 'data-1', spec: { sizeGiB: 10, volumeType: 'gp3' }, generation: 1 };

  it('names only the faults a dying volume has: no place is one only while it is alive', () => {
    const badAttempts = { state: 'pending', attempts: -1, updatedAt: '' };
    expect(issuesOf({ ...unplaced, life: 'dying', status: badAttempts }).map((issue) => issue.path)).toEqual(['status.attempts']);
    expect(issuesOf({ ...unplaced, life: 'alive', status: badAttempts }).map((issue) => issue.path)).toEqual(['status.attempts', 'spec.availabilityZone']);
  });
});
