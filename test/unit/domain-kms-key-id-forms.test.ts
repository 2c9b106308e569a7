/**
 * A KMS key as a spec names it: a key id is a UUID in lowercase (ID_RULES.kmsKeyId), and a key ARN
 * ends in one.
 */
import { describe, expect, it } from 'vitest';
import { kmsKeyIdSchema } from '../../lib/domain/validation.js';

const accepts = (value: string) => kmsKeyIdSchema.safeParse(value).success;

describe('KMS key ids', () => {
  it('takes a key id in lowercase, and refuses one in uppercase', () => {
    expect(accepts('0123abcd-0123-4567-89ab-0123456789ab')).toBe(true);
    expect(accepts('0123ABCD-0123-4567-89ab-0123456789ab')).toBe(false);
  });

  it('refuses a key ARN that names no key', () => {
    expect(accepts('arn:aws:kms:us-east-1:123456789012:key/0123abcd-0123-4567-89ab-0123456789ab')).toBe(true);
    expect(accepts('arn:aws:kms:us-east-1:123456789012:key/')).toBe(false);
  });
});
