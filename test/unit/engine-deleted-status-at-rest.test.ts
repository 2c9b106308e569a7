import { describe, expect, it } from 'vitest';
import type { Status } from '../../lib/domain/records.js';
import { successStatus, underWayStatus } from '../../lib/engine/status.js';

const NOW = Date.parse('2026-01-02T00:00:00.000Z');
const deleting: Status<'deleting'> = {
  state: 'deleting',
  code: 'VolumeNotDeleted',
  attempts: 1,
  updatedAt: new Date(NOW - 60_000).toISOString(),
  operationStartedAt: new Date(NOW - 10 * 60_000).toISOString(),
};

describe('a volume found deleted', () => {
  it('has no operation under way: no start, no failed attempts', () => {
    expect(successStatus(deleting, 'deleted', NOW, 'volume deleted')).toEqual({ state: 'deleted', message: 'volume deleted', attempts: 0, updatedAt: new Date(NOW).toISOString() });
    expect(underWayStatus(deleting, 'deleted', NOW, 'volume deleted')).toEqual({ state: 'deleted', message: 'volume deleted', attempts: 0, updatedAt: new Date(NOW).toISOString() });
  });
});
