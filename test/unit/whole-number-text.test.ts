/** A whole number as a person writes it on a command line or in a query string: plain decimal digits, at least one. */
import { describe, expect, it } from 'vitest';
import { readWholeNumber } from '../../lib/api/parse.js';
import { wholeNumberOption } from '../../lib/command-line.js';

describe('reading a whole number from text', () => {
  it('reads no number from empty text, also where 0 is in range (Number("") would be 0)', () => {
    expect(readWholeNumber('', { min: 0 })).toBeUndefined();
    expect(readWholeNumber('', { min: 0, max: 65535 })).toBeUndefined();
    expect(readWholeNumber('0', { min: 0 })).toBe(0);
  });

  it('refuses an empty option value with the range it takes', () => {
    expect(() => wholeNumberOption({ min: 0 })('')).toThrow('must be a whole number from 0 to 9007199254740991');
  });
});
