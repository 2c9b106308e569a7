/**
 * A recorded CreateVolume ClientToken is read as EC2 documents one: 1 to 64 ASCII characters
 * (Ensuring idempotency in Amazon EC2 API requests), any of them; anything else is refused,
 * naming what is allowed.
 */
import { describe, expect, it } from 'vitest';
import { parseRecord } from '../../lib/domain/validation.js';

const spec = { sizeGiB: 10, volumeType: 'gp3', availabilityZone: 'us-east-1a' };
const withToken = (clientToken: string) =>
  parseRecord({ kind: 'volume', volumeId: 'data-1', spec, life: 'alive', generation: 1, createRequest: { clientToken, availabilityZone: 'us-east-1a', spec } });
const ALLOWED = 'must be 1 to 64 ASCII characters, as EC2 takes for a ClientToken';

describe('the ClientToken of a recorded CreateVolume request', () => {
  it.each([
    ['a space', 'ebsp data 1'],
    ['a DEL', 'ebsp\x7f1'],
    ['a tab', 'ebsp\t1'],
    ['64 characters', 'x'.repeat(64)],
    ['one character', 'x'],
  ])('takes %s: any ASCII character, up to 64', (_, clientToken) => {
    const read = withToken(clientToken);
    expect(read.ok && read.value).toMatchObject({ createRequest: { clientToken } });
  });

  it.each([
    ['65 characters', 'x'.repeat(65)],
    ['a character beyond ASCII', 'ebsp-é'],
    ['an astral character', 'ebsp-\u{1F600}'],
    ['nothing', ''],
  ])('refuses %s, saying what is allowed', (_, clientToken) => {
    const read = withToken(clientToken);
    expect(read.ok ? [] : read.issues).toEqual([{ path: 'createRequest.clientToken', message: ALLOWED }]);
  });
});
