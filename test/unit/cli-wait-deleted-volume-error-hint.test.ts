/**
 * `wait` stopped by a volume whose delete failed with EC2's `VolumeError` (its delete asked for
 * already, tried again at `nextAttemptAt`): the hint says the system tries the delete again, not to
 * delete the record, which is what the client already asked for.
 */
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../cli/main.js';
import { cliHarness } from './cli-harness.js';

describe('CLI wait on a volume whose delete failed with VolumeError', () => {
  const h = cliHarness();

  it("gives the delete's hint, not the one for a live volume EC2 lost", async () => {
    await h.cli(['volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01']);
    await h.cli(['volumes', 'delete', 'data-01']);
    const message = 'EC2 reports volume vol-0123456789abcdef0 in state error; being deleted: trying again at 2026-01-01T00:15:00.000Z';
    await h.setVolumeState('data-01', 'error', { code: 'VolumeError', message, attempts: 8, nextAttemptAt: '2026-01-01T00:15:00.000Z' });
    const run = await h.cli(['wait', 'data-01', '--state', 'deleted']);
    expect(run.code).toBe(EXIT.errorState);
    expect(run.stderr.trim().split('\n').slice(-2)).toEqual([
      `failed: volume data-01 failed: ${message}`,
      'hint: fix what the error names: the system tries the delete again by itself at its next try',
    ]);
  });
});
