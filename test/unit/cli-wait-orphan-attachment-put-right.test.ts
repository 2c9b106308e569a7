/**
 * `wait` on an attachment put right in the table (valid again, still in the `InvalidRecord` error)
 * whose volume record is gone: the system retries only an attachment whose volume record exists,
 * so the wait stops on the error (exit 4) rather than waiting for a retry that does not come. Its
 * status says what is wrong; no `retry-attachment` is hinted at, which the API refuses for an
 * attachment whose volume record does not exist.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord } from '../../lib/domain/records.js';
import { invalidRecordStatus } from '../../lib/engine/status.js';
import { EXIT } from '../../cli/main.js';
import { INSTANCE_A } from './api-fixtures.js';
import { cliHarness, volumeKey } from './cli-harness.js';

const REASONS = 'generation: Invalid input: expected number, received string';

describe('CLI wait on an attachment put right whose volume record is gone', () => {
  const h = cliHarness();
  const attachmentKey = { kind: 'attachment' as const, volumeId: 'data-01', instanceId: INSTANCE_A };

  it('ends in error (exit 4) at once', async () => {
    await h.cli(['volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01', '--attach', INSTANCE_A]);
    await h.store.update<AttachmentRecord>(attachmentKey, { status: invalidRecordStatus(h.clock.now(), REASONS) });
    await h.store.remove(volumeKey('data-01'));
    const started = h.clock.now();
    const run = await h.cli(['wait', 'data-01', '--attachment', INSTANCE_A, '--state', 'attached', '--timeout', '60']);
    expect(run.code).toBe(EXIT.errorState);
    expect(h.clock.now()).toBe(started);
    expect(run.stderr).toContain(`failed: attachment data-01 → ${INSTANCE_A} failed: `);
    expect(run.stderr).not.toContain('hint:');
  });
});
