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

describe('shortenList', () => {
  it('lists an item whole when it fits beside the count of those after it', () => {
    // Ten items: after the first, "9 more" (not "10 more") is what the marker says.
    const items = ['x'.repeat(8), ...Array.from({ length: 9 }, (_, i) => `item ${i}`)];
    expect(shortenList(items, '; ', undefined, 20)).toBe(`${'x'.repeat(8)}; … (9 more)`);
    expect(shortenList(items, '; ', undefined, 19)).toBe(`${'x'.repeat(6)}…; … (9 more)`);
  });

  it('lists as many whole items as fit with the count of the rest', () => {
    const items = ['a'.repeat(4), 'b'.repeat(4), ...Array.from({ length: 98 }, () => 'c'.repeat(4))];
    // "aaaa; bbbb" and "; … (98 more)": 10 + 13.
    expect(shortenList(items, '; ', undefined, 23)).toBe('aaaa; bbbb; … (98 more)');
    expect(shortenList(items, '; ', undefined, 22)).toBe('aaaa; … (99 more)');
  });
});
