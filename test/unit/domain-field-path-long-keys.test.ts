/**
 * The length at which a field path cuts a key, as docs/api.md gives it: a key of up to 200
 * characters is written whole, a longer one by its start and "…", 200 characters in all.
 */
import { describe, expect, it } from 'vitest';
import { fieldPath, validateVolumeSpec } from '../../lib/domain/validation.js';

describe('field paths of long keys', () => {
  it('writes a key of 200 characters whole, and one of 201 as its first 199 and "…"', () => {
    expect(fieldPath(['spec', 'tags', 'k'.repeat(200)])).toBe(`spec.tags.${'k'.repeat(200)}`);
    expect(fieldPath(['spec', 'tags', 'k'.repeat(201)])).toBe(`spec.tags["${'k'.repeat(199)}…"]`);
  });

  it('names a tag key of 200 characters whole in the issue, and a longer one cut to 200', () => {
    const issuePath = (key: string) => {
      const result = validateVolumeSpec({ sizeGiB: 10, volumeType: 'gp3', tags: { [key]: 'v' } });
      return result.ok ? undefined : result.issues[0]?.path;
    };
    expect(issuePath('k'.repeat(200))).toBe(`spec.tags.${'k'.repeat(200)}`);
    expect(issuePath('k'.repeat(5_000))).toBe(`spec.tags["${'k'.repeat(199)}…"]`);
  });
});
