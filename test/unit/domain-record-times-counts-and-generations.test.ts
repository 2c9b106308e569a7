/**
 * Record fields the engine computes with, as a record written straight into the table may hold
 * them: times it schedules by, a claim's expiry in epoch milliseconds, an instance description's
 * time, a retry's generation, the device EC2 shows.
 */
import { describe, expect, it } from 'vitest';
import { parseRecord } from '../../lib/domain/validation.js';
import { newAttachment, newVolume } from './engine-fixtures.js';

function pathsOf(record: unknown): string[] {
  const parsed = parseRecord(record);
  return parsed.ok ? [] : parsed.issues.map((issue) => issue.path);
}

const status = { state: 'error', attempts: 1, updatedAt: '2026-01-01T12:00:00.000Z' } as const;

describe('times a record schedules by', () => {
  it('reads a next attempt at an ISO-8601 time, and refuses one that does not read as a time', () => {
    expect(pathsOf(newVolume('v1', { status: { ...status, nextAttemptAt: '2026-01-01T12:05:00.000Z' } }))).toEqual([]);
    expect(pathsOf(newVolume('v1', { status: { ...status, nextAttemptAt: 'in five minutes' } }))).toEqual(['status.nextAttemptAt']);
    expect(pathsOf(newAttachment('v1', { status: { ...status, nextAttemptAt: '' } }))).toEqual(['status.nextAttemptAt']);
  });

  it("reads a claim expiring at a whole number of epoch milliseconds, and refuses a fraction of one", () => {
    expect(pathsOf(newVolume('v1', { claim: { owner: 'executor-1', expiresAt: 1_767_225_600_000 } }))).toEqual([]);
    expect(pathsOf(newVolume('v1', { claim: { owner: 'executor-1', expiresAt: 1_767_225_600_000.5 } }))).toEqual(['claim.expiresAt']);
  });

  it('reads an instance described at 0 epoch milliseconds or later, and refuses a time before 1970', () => {
    const seen = (describedAt: number) =>
      newAttachment('v1', { instanceSeen: { availabilityZone: 'us-east-1a', state: 'running', otherDevices: [], describedAt } });
    expect(pathsOf(seen(0))).toEqual([]);
    expect(pathsOf(seen(-1))).toEqual(['instanceSeen.describedAt']);
  });
});

describe('generations and devices', () => {
  it('refuses a retry made for generation 0, which no record has (generations start at 1)', () => {
    expect(pathsOf(newVolume('v1', { retriedGeneration: 0 }))).toEqual(['retriedGeneration']);
    expect(pathsOf(newAttachment('v1', { retriedGeneration: 0 }))).toEqual(['retriedGeneration']);
  });

  it('reads the device EC2 shows in 1–64 characters, and refuses one of 65', () => {
    expect(pathsOf(newAttachment('v1', { device: `/dev/${'x'.repeat(59)}` }))).toEqual([]);
    expect(pathsOf(newAttachment('v1', { device: `/dev/${'x'.repeat(60)}` }))).toEqual(['device']);
  });
});
