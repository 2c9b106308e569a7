/**
 * EC2 says a CreateVolume's token made a volume since deleted only through an
 * IdempotentParameterMismatch in its own words: the same words in any other answer (a fault
 * quoting a message, say) say nothing of the token.
 */
import { describe, expect, it } from 'vitest';
import { classifyError, createTokenVolumeDeleted } from '../../lib/engine/errors.js';
import { ProviderError, PROVIDER_ERROR_KINDS } from '../../lib/engine/ports.js';

const WORDS = 'The client token ebsp-data-1-g1 is associated with a resource that is already deleted.';

describe('createTokenVolumeDeleted', () => {
  it('holds for an IdempotentParameterMismatch in those words, not for one in others', () => {
    expect(createTokenVolumeDeleted(classifyError('CreateVolume', new ProviderError('idempotency-mismatch', 'IdempotentParameterMismatch', WORDS)))).toBe(true);
    expect(createTokenVolumeDeleted(classifyError('CreateVolume', new ProviderError('idempotency-mismatch', 'IdempotentParameterMismatch', 'other parameters')))).toBe(false);
  });

  it('does not hold for any other answer in those words', () => {
    for (const kind of PROVIDER_ERROR_KINDS.filter((k) => k !== 'idempotency-mismatch'))
      expect(createTokenVolumeDeleted(classifyError('CreateVolume', new ProviderError(kind, 'Code', WORDS))), kind).toBe(false);
    expect(createTokenVolumeDeleted(classifyError('CreateVolume', new Error(WORDS)))).toBe(false);
  });
});
