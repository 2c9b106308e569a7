import { describe, expect, it } from 'vitest';
import { shortenList } from '../../lib/domain/status-message.js';

/**
 * `shortenList` lists as many whole items as fit with the marker for those after them. The marker
 * counts the items left out, so its width depends on how many are listed: an item fits when it
 * fits beside the marker it would leave, not the longer one of the items before it.
 */
describe('shortenList at a marker whose count loses a digit', () => {
  const items = ['a'.repeat(10), 'b'.repeat(10), ...Array.from({ length: 9 }, () => 'c'.repeat(10))];

  it('lists the second item when it and "… (9 more)" fill the bound exactly', () => {
    // 10 + ", " + 10 + ", … (9 more)" = 34 characters; with 10 left out the marker is one longer.
    const shortened = shortenList(items, ', ', undefined, 34);
    expect(shortened).toBe(`${'a'.repeat(10)}, ${'b'.repeat(10)}, … (9 more)`);
    expect(shortened.length).toBe(34);
  });

  it('lists only the first one when the bound is one character less', () => {
    expect(shortenList(items, ', ', undefined, 33)).toBe(`${'a'.repeat(10)}, … (10 more)`);
  });
});
