/**
 * The hint to delete a record the API found not valid names the whole volume id, which may hold dots,
 * underscores and hyphens (`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`).
 */
import { describe, expect, it } from 'vitest';
import { invalidRecordDeleteHint } from '../../cli/format.js';

describe('the delete hint for a record that is not valid', () => {
  it('names a volume id with dots and underscores whole', () => {
    expect(invalidRecordDeleteHint('; or delete the volume (DELETE /volumes/db_data.01-a): its faults are all ones a delete does not use')).toBe(
      "the volume's record may be deleted as it is: `ebs-provisioner volumes delete db_data.01-a`",
    );
  });

  it("names an attachment's volume id with dots and underscores whole", () => {
    expect(invalidRecordDeleteHint('(DELETE /volumes/db_data.01/attachments/i-0123456789abcdef0)')).toBe(
      "the attachment's record may be deleted as it is: `ebs-provisioner volumes detach db_data.01 i-0123456789abcdef0`",
    );
  });
});
