import { describe, expect, it } from 'vitest';
import { shortenList, shortenMiddle } from '../../lib/domain/status-message.js';

describe('shortenMiddle', () => {
  it('never cuts a character in two at the start of the kept end', () => {
    // 'ab' + four two-unit characters + 'c': within 8, the start keeps 3 units and the end 4; the
    // end would begin with the second unit of a character, so it begins after that character.
    for (const char of ['\u{10000}', '\u{103FF}', '😀']) {
      const text = `ab${char.repeat(4)}c`;
      const shortened = shortenMiddle(text, 8);
      expect(shortened).toBe(`ab…${char}c`);
      expect(shortened.length).toBeLessThanOrEqual(8);
      expect([...shortened].every((c) => c.codePointAt(0)! < 0xd800 || c.codePointAt(0)! > 0xdfff)).toBe(true);
    }
  });
});

describe('shortenList', () => {
  it('joins an empty first item with its separator like any other', () => {
    expect(shortenList(['', 'b', 'c'.repeat(40)], '; ', undefined, 30)).toBe('; b; … (1 more)');
  });
});
