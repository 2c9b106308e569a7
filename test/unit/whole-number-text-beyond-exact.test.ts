/** Digits naming a whole number past 2^53 - 1 are not read as the nearby number `Number()` rounds them to. */
import { describe, expect, it } from 'vitest';
import { readWholeNumber } from '../../lib/api/parse.js';

describe('a whole number past the largest a number holds exactly', () => {
  it('reads as no number, also in a range that reaches beyond it', () => {
    const wide = { min: 0, max: Number.MAX_VALUE };
    expect(readWholeNumber('99999999999999999999', wide)).toBeUndefined();
    expect(readWholeNumber('9007199254740993', wide)).toBeUndefined();
    expect(readWholeNumber('9007199254740991', wide)).toBe(Number.MAX_SAFE_INTEGER);
  });
});
