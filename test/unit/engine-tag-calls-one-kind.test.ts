import { describe, expect, it } from 'vitest';
import { tagCalls } from '../../lib/engine/planner.js';

describe('a tag change makes only the calls it needs', () => {
  it('keys only removed: one DeleteTags, no CreateTags', () => {
    expect(tagCalls({ a: '1', b: '2' }, { a: '1' })).toEqual([{ action: 'DeleteTags', keys: ['b'] }]);
    expect(tagCalls({ a: '1' }, undefined)).toEqual([{ action: 'DeleteTags', keys: ['a'] }]);
  });

  it('keys only added or changed: one CreateTags, no DeleteTags', () => {
    expect(tagCalls({ a: '1' }, { a: '2', b: '3' })).toEqual([{ action: 'CreateTags', tags: { a: '2', b: '3' } }]);
    expect(tagCalls(undefined, { a: '1' })).toEqual([{ action: 'CreateTags', tags: { a: '1' } }]);
  });
});
