/**
 * `wait` stopped by an attachment that failed on its own while EC2 reports its volume in state
 * `error` (`VolumeError`, its data lost): a retry of the attachment would attach that volume again,
 * which EC2 refuses alike, so the hint says to delete the volume's record and create it again, as it
 * does to the volume's own wait.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord, RecordKey } from '../../lib/domain/records.js';
import { EXIT } from '../../cli/main.js';
import { INSTANCE_A } from './api-fixtures.js';
import { cliHarness } from './cli-harness.js';

describe('CLI wait for an attachment in error whose volume EC2 lost', () => {
  const h = cliHarness();

  it('says to delete the volume record and create it again, not to retry the attachment', async () => {
    await h.cli(['volumes', 'create', '--size', '20', '--id', 'data-01', '--attach', INSTANCE_A]);
    const key: RecordKey = { kind: 'attachment', volumeId: 'data-01', instanceId: INSTANCE_A };
    const failure = "vol-0123456789abcdef0 is in the 'error' state";
    await h.store.update<AttachmentRecord>(key, { status: { state: 'error', code: 'IncorrectState', message: failure, attempts: 8, updatedAt: new Date(h.clock.now()).toISOString() } });
    await h.setVolumeState('data-01', 'error', { code: 'VolumeError', message: 'EC2 reports volume vol-0123456789abcdef0 in state error: its data is lost' });
    const run = await h.cli(['wait', 'data-01', '--attachment', INSTANCE_A, '--state', 'attached']);
    expect(run.code).toBe(EXIT.errorState);
    expect(run.stderr.trim().split('\n').slice(-2)).toEqual([
      `failed: attachment data-01 → ${INSTANCE_A} failed: ${failure}`,
      'hint: a retry only looks at the volume again: delete the record with `ebs-provisioner volumes delete data-01` (which deletes the EC2 volume), then create it again',
    ]);
  });
});
