import { describe, expect, it } from 'vitest';
import { keyFromItem } from '../../lib/aws/record-item.js';

/** A volume record's sort key is exactly `VOLUME`, an attachment's `ATTACHMENT#<instance id>`; any other names no record. */
describe('the record key an item names by its sort key', () => {
  it('VOLUME is the volume itself', () => {
    expect(keyFromItem({ pk: 'VOLUME#v1', sk: 'VOLUME' })).toEqual({ kind: 'volume', volumeId: 'v1' });
  });

  it.each(['VOLUMES', 'VOLUME#v1', 'VOLUME ', 'volume'])('%j, only like it, names no record', (sk) => {
    expect(keyFromItem({ pk: 'VOLUME#v1', sk })).toBeUndefined();
  });
});
