import { describe, expect, it } from 'vitest';
import { keyFromItem } from '../../lib/aws/record-item.js';

/** An attachment's sort key begins with `ATTACHMENT#`, the instance id after it; one holding it further in names no record. */
describe('the record key an item names by an attachment-like sort key', () => {
  it('ATTACHMENT#<instance id> is that attachment', () => {
    expect(keyFromItem({ pk: 'VOLUME#v1', sk: 'ATTACHMENT#i-1' })).toEqual({ kind: 'attachment', volumeId: 'v1', instanceId: 'i-1' });
  });

  it.each(['VOLUME#ATTACHMENT#i-1', ' ATTACHMENT#i-1', 'attachment#i-1'])('%j, only holding it, names no record', (sk) => {
    expect(keyFromItem({ pk: 'VOLUME#v1', sk })).toBeUndefined();
  });
});
