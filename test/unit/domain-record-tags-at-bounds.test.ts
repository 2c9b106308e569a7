/**
 * The tags a record in the table holds beyond its spec, and a dying volume's tag keys, at their
 * bounds: EC2's 1–127 characters a key and 0–256 a value for what EC2 holds and what a CreateTags
 * set, and 128 characters a key (the limit before) for a volume being deleted (docs/api.md, Tags).
 */
import { describe, expect, it } from 'vitest';
import { parseRecord } from '../../lib/domain/validation.js';
import { newVolume } from './engine-fixtures.js';

const EBS_VOLUME_ID = 'vol-0123456789abcdef0';

function pathsOf(record: unknown): string[] {
  const parsed = parseRecord(record);
  return parsed.ok ? [] : parsed.issues.map((issue) => issue.path);
}

describe('the tags EC2 holds and the keys a CreateTags set', () => {
  it('reads a key of one character and an empty value, as EC2 takes them', () => {
    const record = { ...newVolume('v1', { ebsVolumeId: EBS_VOLUME_ID }), observed: { sizeGiB: 10, volumeType: 'gp3', tags: { k: '' } }, tagKeysSet: ['k'] };
    expect(parseRecord(record)).toMatchObject({ ok: true, value: { observed: { tags: { k: '' } }, tagKeysSet: ['k'] } });
  });

  it('refuses an empty key among the keys a CreateTags set', () => {
    expect(pathsOf({ ...newVolume('v1', { ebsVolumeId: EBS_VOLUME_ID }), tagKeysSet: [''] })).toEqual(['tagKeysSet.0']);
  });
});

describe("a dying volume's tag keys", () => {
  const volume = (life: 'alive' | 'dying', keyChars: number) => ({
    ...newVolume('v1', { ebsVolumeId: EBS_VOLUME_ID, life }),
    spec: { sizeGiB: 10, volumeType: 'gp3', tags: { ['k'.repeat(keyChars)]: 'v' } },
  });

  it('reads a dying volume with a key of 128 characters, the limit before, so it can be deleted; an alive one is refused', () => {
    expect(parseRecord(volume('dying', 128))).toMatchObject({ ok: true });
    expect(pathsOf(volume('alive', 128))).toEqual([`spec.tags.${'k'.repeat(128)}`]);
  });

  it('refuses a dying volume with a key of 129 characters, past any limit there was', () => {
    expect(pathsOf(volume('dying', 129))).toEqual([`spec.tags.${'k'.repeat(129)}`]);
  });
});
