/**
 * A key `__proto__` read by the DynamoDB SDK becomes the prototype of its map rather than a key of
 * it; a record holding one is refused by name all the same, as one holding the key itself is.
 */
import { describe, expect, it } from 'vitest';
import { parseRecord } from '../../lib/domain/validation.js';
import { newVolume } from './engine-fixtures.js';

describe('a map whose prototype a `__proto__` key set', () => {
  it('refuses the record, naming the key, though the map has no such own key', () => {
    const tags: Record<string, string> = { team: 'a' };
    // Assigned, not defined: as a reader that builds maps by assignment does, this sets the prototype.
    (tags as { __proto__: unknown }).__proto__ = { costCenter: '7' };
    expect(Object.hasOwn(tags, '__proto__')).toBe(false);
    const record = { ...newVolume('v1'), spec: { ...newVolume('v1').spec, tags } };
    expect(parseRecord(record)).toEqual({ ok: false, issues: [{ path: 'spec.tags.__proto__', message: '"__proto__" cannot be a key' }] });
  });

  it('reads a map without a prototype as a plain one', () => {
    const tags = Object.assign(Object.create(null) as Record<string, string>, { team: 'a' });
    expect(parseRecord({ ...newVolume('v1'), spec: { ...newVolume('v1').spec, tags } })).toMatchObject({ ok: true, value: { spec: { tags: { team: 'a' } } } });
  });
});
