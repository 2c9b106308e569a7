/**
 * What a volume record may hold of EC2's side and of its status, as a record written straight into
 * the table is read: sizes and performance as EBS holds them, tags within EC2's limits, ISO times
 * the engine computes with, whole attempt counts, bounded text. A dying volume's spec is read for
 * its structure only, so that it can still be deleted.
 */
import { describe, expect, it } from 'vitest';
import { managedTagsOf, parseRecord } from '../../lib/domain/validation.js';
import { newAttachment, newVolume } from './engine-fixtures.js';

function pathsOf(record: unknown): string[] {
  const parsed = parseRecord(record);
  return parsed.ok ? [] : parsed.issues.map((issue) => issue.path);
}

const EBS_ID = 'vol-0123456789abcdef0';
const held = (observed: Record<string, unknown>) => ({ ...newVolume('v1'), ebsVolumeId: EBS_ID, status: { state: 'available', attempts: 0, updatedAt: '' }, observed });

describe('what EC2 reports of a volume', () => {
  it('reads a size and throughput of at least 1, and refuses 0 for either', () => {
    expect(pathsOf(held({ sizeGiB: 1, volumeType: 'gp3', iops: 3000, throughput: 125 }))).toEqual([]);
    expect(pathsOf(held({ sizeGiB: 0, volumeType: 'gp3' }))).toEqual(['observed.sizeGiB']);
    expect(pathsOf(held({ sizeGiB: 10, volumeType: 'gp3', throughput: 0 }))).toEqual(['observed.throughput']);
  });

  it('reads tag values of at most 256 characters, and refuses one of 257', () => {
    expect(pathsOf(held({ sizeGiB: 10, volumeType: 'gp3', tags: { team: 'v'.repeat(256) } }))).toEqual([]);
    expect(pathsOf(held({ sizeGiB: 10, volumeType: 'gp3', tags: { team: 'v'.repeat(257) } }))).toEqual(['observed.tags.team']);
  });

  it('manages a tag key the spec names though EC2 was never seen to hold it', () => {
    const record = { ...held({ sizeGiB: 10, volumeType: 'gp3', tags: {} }), spec: { ...newVolume('v1').spec, tags: { team: 'a' } } } as never;
    expect(managedTagsOf(record, { team: 'b', cost: 'c-1' })).toEqual({ team: 'b' });
  });
});

describe('times and counts of a record', () => {
  it("reads the latest modification's start as an ISO-8601 time, and refuses one that is not", () => {
    expect(pathsOf({ ...held({ sizeGiB: 10, volumeType: 'gp3' }), lastModificationStartedAt: '2026-01-01T12:00:00.000Z' })).toEqual([]);
    expect(pathsOf({ ...held({ sizeGiB: 10, volumeType: 'gp3' }), lastModificationStartedAt: 'yesterday' })).toEqual(['lastModificationStartedAt']);
  });

  it("reads an attachment's volume creation time of up to 64 characters, and refuses one of 65", () => {
    expect(pathsOf(newAttachment('v1', { volumeCreatedAt: 't'.repeat(64) }))).toEqual([]);
    expect(pathsOf(newAttachment('v1', { volumeCreatedAt: 't'.repeat(65) }))).toEqual(['volumeCreatedAt']);
  });

  it('refuses a status whose count of failed attempts is not a whole number', () => {
    expect(pathsOf(newVolume('v1', { status: { state: 'pending', attempts: 1.5, updatedAt: '' } }))).toEqual(['status.attempts']);
    expect(pathsOf(newAttachment('v1', { status: { state: 'pending', attempts: 0.5, updatedAt: '' } }))).toEqual(['status.attempts']);
  });
});

describe("a dying volume's spec", () => {
  it('is read whatever IOPS it asks for, so the volume can still be deleted; alive, the same spec is refused', () => {
    for (const iops of [0, -5, 1.5]) {
      const spec = { sizeGiB: 100, volumeType: 'io2', iops, availabilityZone: 'us-east-1a' };
      expect(pathsOf({ ...newVolume('v1'), life: 'dying', spec })).toEqual([]);
      expect(pathsOf({ ...newVolume('v1'), spec })).toEqual(['spec.iops']);
    }
  });
});
