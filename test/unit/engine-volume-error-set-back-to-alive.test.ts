/**
 * A volume in error whose message announces the delete of a dying record (VolumeError), set back
 * to alive before that delete, says what the client can do instead, as any live volume in error
 * does; an error with nothing to take back is left as it is.
 */
import { describe, expect, it } from 'vitest';
import type { Status } from '../../lib/domain/records.js';
import { settledStatus, VOLUME_ERROR_ALIVE, VOLUME_ERROR_DYING } from '../../lib/engine/status.js';

const NOW = Date.parse('2026-01-01T01:00:00.000Z');
const BEFORE = '2026-01-01T00:00:00.000Z';

describe('settledStatus of a volume in error', () => {
  it('replaces the announced delete with what the client can do', () => {
    const status: Status<string> = { state: 'error', code: 'VolumeError', message: `EC2 reports the volume in error${VOLUME_ERROR_DYING}`, attempts: 0, updatedAt: BEFORE };
    expect(settledStatus(status, NOW)).toEqual({
      state: 'error',
      code: 'VolumeError',
      message: `EC2 reports the volume in error${VOLUME_ERROR_ALIVE}`,
      attempts: 0,
      updatedAt: new Date(NOW).toISOString(),
    });
  });

  it('leaves an error with no next attempt and no announced delete as it is', () => {
    const status: Status<string> = { state: 'error', code: 'VolumeError', message: `EC2 reports the volume in error${VOLUME_ERROR_ALIVE}`, attempts: 0, updatedAt: BEFORE };
    expect(settledStatus(status, NOW)).toBe(status);
  });
});
