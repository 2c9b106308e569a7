import { describe, expect, it } from 'vitest';
import { MAX_QUOTED_CHARS, MAX_STATUS_MESSAGE_CHARS, quoted, shortenAround, shortenList, shortenMessage } from '../../lib/domain/status-message.js';

describe('shortenMessage', () => {
  it('keeps a message within the bound as it is', () => {
    expect(shortenMessage('bad iops')).toBe('bad iops');
    expect(shortenMessage('x'.repeat(MAX_STATUS_MESSAGE_CHARS))).toBe('x'.repeat(MAX_STATUS_MESSAGE_CHARS));
  });

  it('cuts a longer one to the bound, ending with "…"', () => {
    const shortened = shortenMessage('x'.repeat(100_000));
    expect(shortened).toHaveLength(MAX_STATUS_MESSAGE_CHARS);
    expect(shortened).toBe(`${'x'.repeat(MAX_STATUS_MESSAGE_CHARS - 1)}…`);
  });

  it('never cuts a character in two', () => {
    // '😀' is two UTF-16 units: a cut after 9 units would leave half of one.
    expect(shortenMessage('😀'.repeat(10), 10)).toBe(`${'😀'.repeat(4)}…`);
    expect(shortenMessage('a😀😀😀😀😀', 10)).toBe('a😀😀😀😀…');
    // The first and the last code points of two units: their first units are the bounds of the high surrogates.
    expect(shortenMessage('\u{10000}'.repeat(10), 10)).toBe(`${'\u{10000}'.repeat(4)}…`);
    expect(shortenMessage('\u{10FFFF}'.repeat(10), 10)).toBe(`${'\u{10FFFF}'.repeat(4)}…`);
  });
});

describe('shortenAround', () => {
  it('joins the three as they are when they fit', () => {
    expect(shortenAround('failed (', 'boom', '); tried again at noon', 40)).toBe('failed (boom); tried again at noon');
  });

  it('shortens the text in the middle, keeping what is around it whole and the whole within the bound', () => {
    expect(shortenAround('a (', 'x'.repeat(3000), ') next', 20)).toBe(`a (${'x'.repeat(10)}…) next`);
    // 3 000 characters of two UTF-16 units each: the cut at the bound would fall inside one, so the text ends one unit earlier.
    const long = shortenAround('failed (', '😀'.repeat(1500), '); tried again at noon');
    expect(long).toHaveLength(MAX_STATUS_MESSAGE_CHARS - 1);
    expect(long).toMatch(/^failed \((😀)+…\); tried again at noon$/u);
    // One unit on: the cut falls between two characters.
    expect(shortenAround('failed (', `é${'😀'.repeat(1500)}`, '); tried again at noon')).toMatch(/^failed \(é(😀)+…\); tried again at noon$/u);
  });

  it('shortens the whole at its end when the words around the text alone do not fit', () => {
    expect(shortenAround('abcdef', 'x', 'ghijkl', 10)).toBe('abcdefxgh…');
    // The words around fill the bound exactly: no room for even "…" of the text.
    expect(shortenAround('abcde', 'x', 'fghij', 10)).toBe('abcdexfgh…');
  });

  it('keeps the words around whole while one character is left for the text', () => {
    expect(shortenAround('ab', 'xyz', 'cd', 5)).toBe('ab…cd');
    expect(shortenAround('ab', 'x', 'cd', 5)).toBe('abxcd');
  });
});

describe('quoted', () => {
  it('keeps a text within MAX_QUOTED_CHARS, shortening a longer one to it', () => {
    expect(quoted('boom')).toBe('boom');
    expect(quoted('x'.repeat(3000))).toBe(`${'x'.repeat(MAX_QUOTED_CHARS - 1)}…`);
  });

  it('leaves room within the status bound for the words the system writes after the quote', () => {
    const after = '; retried at 2026-01-01T00:00:00.000Z after the longest backoff (gave up after 8 failed attempts)';
    expect(`failed (${quoted('x'.repeat(100_000))})${after}`.length).toBeLessThanOrEqual(MAX_STATUS_MESSAGE_CHARS);
  });
});

describe('shortenList', () => {
  it('joins the items when they fit', () => {
    expect(shortenList(['a', 'b', 'c'], '; ')).toBe('a; b; c');
    // To the last character.
    expect(shortenList(['x'.repeat(20), 'y'.repeat(18)], '; ', undefined, 40)).toBe(`${'x'.repeat(20)}; ${'y'.repeat(18)}`);
    expect(shortenList(['x'.repeat(20), 'y'.repeat(19)], '; ', undefined, 40)).toBe(`${'x'.repeat(20)}; … (1 more)`);
  });

  it('lists the first items that fit, then says how many more', () => {
    const items = Array.from({ length: 1000 }, (_, i) => `item ${i} is wrong`);
    const text = shortenList(items, '; ');
    expect(text.length).toBeLessThanOrEqual(MAX_STATUS_MESSAGE_CHARS);
    const listed = text.split('; ').slice(0, -1);
    expect(listed).toEqual(items.slice(0, listed.length));
    expect(text.endsWith(`; … (${1000 - listed.length} more)`)).toBe(true);
    expect(shortenList(items, '; ', (count) => `${count} more issues`, 40)).toBe('item 0 is wrong; … (999 more issues)');
    // An item that fits to the last character is listed.
    expect(shortenList(['a'.repeat(13), 'b'.repeat(13), 'c'.repeat(20)], '; ', undefined, 40)).toBe(`${'a'.repeat(13)}; ${'b'.repeat(13)}; … (1 more)`);
  });

  it('keeps the list and its count within the bound whatever the bound, the count written in more digits than what is left', () => {
    const items = Array.from({ length: 12 }, (_, i) => `i${i}`);
    const whole = items.join('; ');
    for (let max = 14; max < whole.length; max++) {
      const text = shortenList(items, '; ', undefined, max);
      expect(text.length, `max ${max}: ${text}`).toBeLessThanOrEqual(max);
      expect(text, `max ${max}`).toMatch(/; … \(\d+ more\)$/);
    }
  });

  it('shortens a first item too long on its own', () => {
    expect(shortenList(['x'.repeat(50), 'y'], '; ', undefined, 30)).toBe(`${'x'.repeat(17)}…; … (1 more)`);
    expect(shortenList(['x'.repeat(50)], '; ', undefined, 30)).toBe(`${'x'.repeat(29)}…`);
  });
});
