/**
 * The length at which a field path cuts a key, as docs/api.md gives it: a key of up to 200
 * characters is written whole, a longer one by its first 99 and its last 100 characters, "…"
 * between them, 200 characters in all.
 */
import { describe, expect, it } from 'vitest';
import { fieldPath, validateVolumeSpec } from '../../lib/domain/validation.js';

describe('field paths of long keys', () => {
  it('writes a key of 200 characters whole, and one of 201 as its first 99 and its last 100, "…" between them', () => {
    expect(fieldPath(['spec', 'tags', 'k'.repeat(200)])).toBe(`spec.tags.${'k'.repeat(200)}`);
    expect(fieldPath(['spec', 'tags', `${'a'.repeat(100)}m${'z'.repeat(100)}`])).toBe(`spec.tags["${'a'.repeat(99)}…${'z'.repeat(100)}"]`);
  });

  it('tells apart two long keys that share their first 199 characters', () => {
    const start = 'k'.repeat(199);
    const first = fieldPath(['spec', 'tags', `${start}ab`]);
    const second = fieldPath(['spec', 'tags', `${start}ba`]);
    expect([first, second]).toEqual([`spec.tags["${'k'.repeat(99)}…${'k'.repeat(98)}ab"]`, `spec.tags["${'k'.repeat(99)}…${'k'.repeat(98)}ba"]`]);
  });

  it('names a tag key of 200 characters whole in the issue, and a longer one cut to 200', () => {
    const issuePath = (key: string) => {
      const result = validateVolumeSpec({ sizeGiB: 10, volumeType: 'gp3', tags: { [key]: 'v' } });
      return result.ok ? undefined : result.issues[0]?.path;
    };
    expect(issuePath('k'.repeat(200))).toBe(`spec.tags.${'k'.repeat(200)}`);
    expect(issuePath(`${'a'.repeat(2_500)}${'z'.repeat(2_500)}`)).toBe(`spec.tags["${'a'.repeat(99)}…${'z'.repeat(100)}"]`);
  });
});
