import { describe, expect, it } from 'vitest';
import { keyFromItem } from '../../lib/aws/record-item.js';

/** Keys that are no strings follow no known pattern: they name no record, rather than failing the read. */
describe('the record key an item names by keys that are no strings', () => {
  it.each([
    [{ pk: 7, sk: 'VOLUME' }],
    [{ pk: 'VOLUME#v1', sk: 7 }],
    [{ pk: undefined, sk: 'VOLUME' }],
    [{ pk: 'VOLUME#v1' }],
  ])('%j names no record', (item) => {
    expect(keyFromItem(item)).toBeUndefined();
  });
});
