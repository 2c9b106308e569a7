import { describe, expect, it } from 'vitest';
import { MAX_UNKNOWN_FIELDS_LISTED, parseRecord, unknownFieldIssues } from '../../lib/domain/validation.js';
import { newVolume } from './engine-fixtures.js';

const keys = (count: number) => Array.from({ length: count }, (_, i) => `k${i}`);

describe('unknown fields', () => {
  it('names each of them up to the limit', () => {
    const issues = unknownFieldIssues(['spec'], keys(MAX_UNKNOWN_FIELDS_LISTED));
    expect(issues).toEqual(keys(MAX_UNKNOWN_FIELDS_LISTED).map((key) => ({ path: `spec.${key}`, message: 'is not a known field' })));
  });

  it('counts the rest in one issue on the object, in the singular for one', () => {
    expect(unknownFieldIssues(['spec'], keys(MAX_UNKNOWN_FIELDS_LISTED + 1)).at(-1)).toEqual({ path: 'spec', message: 'and 1 more unknown field' });
    const many = unknownFieldIssues([], keys(MAX_UNKNOWN_FIELDS_LISTED + 7), 'is not a known field: this route takes no body');
    expect(many).toHaveLength(MAX_UNKNOWN_FIELDS_LISTED + 1);
    expect(many.at(-2)).toEqual({ path: `k${MAX_UNKNOWN_FIELDS_LISTED - 1}`, message: 'is not a known field: this route takes no body' });
    expect(many.at(-1)).toEqual({ path: '', message: 'and 7 more unknown fields' });
  });
});

describe('a record written into the table with fields it has no place for', () => {
  it('names each by its own path, at the top and inside the spec', () => {
    const parsed = parseRecord({ ...newVolume('data-1'), note: 'made by hand', spec: { ...newVolume('data-1').spec, colour: 'red' } });
    expect(parsed.ok ? [] : parsed.issues).toEqual(
      expect.arrayContaining([
        { path: 'note', message: 'is not a known field' },
        { path: 'spec.colour', message: 'is not a known field' },
      ]),
    );
    expect(parsed.ok ? 0 : parsed.issues.length).toBe(2);
  });

  it('names the first of many and counts the rest on the record', () => {
    const extra = Object.fromEntries(keys(MAX_UNKNOWN_FIELDS_LISTED + 2).map((key) => [key, 1]));
    const parsed = parseRecord({ ...newVolume('data-1'), ...extra });
    const issues = parsed.ok ? [] : parsed.issues;
    expect(issues).toHaveLength(MAX_UNKNOWN_FIELDS_LISTED + 1);
    expect(issues[0]).toEqual({ path: 'k0', message: 'is not a known field' });
    expect(issues.at(-1)).toEqual({ path: '', message: 'and 2 more unknown fields' });
  });
});
