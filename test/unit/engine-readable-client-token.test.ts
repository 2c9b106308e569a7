/**
 * `readableClientToken` passes on a CreateVolume token as it is only when EC2 takes it (at most 64
 * ASCII characters) and it reads plainly: printable, with no space. Anything else is left to be
 * hashed.
 */
import { describe, expect, it } from 'vitest';
import { readableClientToken } from '../../lib/engine/execution/ownership.js';

describe('a CreateVolume token kept as it reads', () => {
  it('printable ASCII without a space, up to 64 characters, is kept', () => {
    expect(readableClientToken('ebsp-data-1-0123456789ab-g1')).toBe('ebsp-data-1-0123456789ab-g1');
    expect(readableClientToken(`!${'x'.repeat(62)}~`)).toBe(`!${'x'.repeat(62)}~`);
  });

  it.each([
    ['a space', 'ebsp-data 1-g1'],
    ['a control character', 'ebsp-data\u00011-g1'],
    ['DEL', 'ebsp-data\u007f1-g1'],
    ['a character beyond ASCII', 'ebsp-dätä-g1'],
    ['65 characters', 'x'.repeat(65)],
    ['nothing', ''],
  ])('%s: not kept', (_what, token) => {
    expect(readableClientToken(token)).toBeUndefined();
  });
});
