/**
 * The CreateVolume idempotency token keeps the record id readable while the whole token fits EC2's
 * limit of 64 characters (`createVolumeClientToken`), 64 itself included; one that would run longer
 * is hashed, and still fits.
 */
import { describe, expect, it } from 'vitest';
import { createVolumeClientToken } from '../../lib/engine/execution/ownership.js';

const CREATED_AT = '2026-01-01T00:00:00.000Z';

describe('the CreateVolume token at the 64-character bound', () => {
  it('names an id whose token is exactly 64 characters', () => {
    // `ebsp-` + id + `-` + 12 hex digits of the incarnation + `-g1`: 21 characters besides the id.
    const id = 'v'.repeat(43);
    const token = createVolumeClientToken(id, CREATED_AT, 1);
    expect(token).toHaveLength(64);
    expect(token).toMatch(new RegExp(`^ebsp-${id}-[0-9a-f]{12}-g1$`));
  });

  it('hashes an id one character longer, into a token that still fits', () => {
    const id = 'v'.repeat(44);
    const token = createVolumeClientToken(id, CREATED_AT, 1);
    expect(token).not.toContain(id);
    expect(token).toMatch(/^ebsp-[0-9a-f]+-g1$/);
    expect(token.length).toBeLessThanOrEqual(64);
  });
});
