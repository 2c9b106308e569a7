/**
 * Only an attachment waiting to attach (pending) waits for its volume's retry: one attached already,
 * whose volume fails (a failed modification, say), is waited on as any other.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord, RecordKey } from '../../lib/domain/records.js';
import { EXIT } from '../../cli/main.js';
import { INSTANCE_A } from './api-fixtures.js';
import { cliHarness } from './cli-harness.js';

describe('CLI wait for an attached attachment whose volume fails', () => {
  const h = cliHarness();

  it('goes on to its timeout (exit 3), not stopping as an attach that cannot be made', async () => {
    await h.cli(['volumes', 'create', '--size', '20', '--id', 'data-01', '--attach', INSTANCE_A]);
    const key: RecordKey = { kind: 'attachment', volumeId: 'data-01', instanceId: INSTANCE_A };
    await h.store.update<AttachmentRecord>(key, { status: { state: 'attached', attempts: 0, updatedAt: new Date(h.clock.now()).toISOString() }, device: '/dev/sdf' });
    await h.setVolumeState('data-01', 'error', { code: 'VolumeLimitExceeded', message: 'You have exceeded your maximum gp3 storage limit', attempts: 3 });
    const run = await h.cli(['wait', 'data-01', '--attachment', INSTANCE_A, '--state', 'detached', '--timeout', '4']);
    expect(run.code).toBe(EXIT.timeout);
    expect(run.stderr).toContain(`failed: attachment data-01 → ${INSTANCE_A} is still attached after 4s; wanted detached`);
    expect(run.stderr).not.toContain('cannot attach');
  });
});
