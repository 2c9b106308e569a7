import { describe, expect, it } from 'vitest';
import { MAX_UNKNOWN_FIELDS_LISTED, unknownFieldIssues } from '../../lib/api/parse.js';

describe('unknown fields', () => {
  const keys = (count: number) => Array.from({ length: count }, (_, i) => `k${i}`);

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
