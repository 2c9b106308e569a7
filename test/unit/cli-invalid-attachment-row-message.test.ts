/**
 * An attachment whose record is not valid shows, in the attachments table, its status message: the
 * reasons it is not valid (README's alarms table: `error`, code `InvalidRecord`, the reasons in the message).
 */
import { describe, expect, it } from 'vitest';
import { attachmentsTable } from '../../cli/format.js';
import type { InvalidAttachmentView } from '../../lib/api/schemas.js';

describe('an attachment that is not valid in the attachments table', () => {
  it('shows its state and the reasons from its status message', () => {
    const invalid: InvalidAttachmentView = {
      volumeId: 'data-01',
      instanceId: 'i-0123456789abcdef0',
      invalid: true,
      status: { state: 'error', attempts: 0, code: 'InvalidRecord', message: 'requestedDevice: not a device name', updatedAt: '2026-01-01T12:00:00.000Z' },
    };
    expect(attachmentsTable([invalid]).split('\n')[1]!.split(/ {2,}/)).toEqual([
      'data-01', 'i-0123456789abcdef0', 'error (InvalidRecord)', '-', '-', 'requestedDevice: not a device name',
    ]);
  });
});
