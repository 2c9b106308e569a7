/**
 * `wait` on a record put right in the table: valid again, its status still the `InvalidRecord` error
 * the watcher wrote, until the watcher, seeing the change, retries it.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord, VolumeRecord } from '../../lib/domain/records.js';
import { invalidRecordStatus } from '../../lib/engine/status.js';
import { EXIT } from '../../cli/main.js';
import { INSTANCE_A } from './api-fixtures.js';
import { cliHarness, volumeKey } from './cli-harness.js';

const REASONS = 'generation: Invalid input: expected number, received string';

describe('CLI wait on a record put right in the table', () => {
  const h = cliHarness();
  const attachmentKey = { kind: 'attachment' as const, volumeId: 'data-01', instanceId: INSTANCE_A };

  it('waits for the retry the system makes of a volume put right, rather than stopping on the reasons it no longer has', async () => {
    await h.cli(['volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01']);
    await h.store.update<VolumeRecord>(volumeKey('data-01'), { status: invalidRecordStatus(h.clock.now(), REASONS) });
    // The watcher's retry, then the volume made.
    h.clock.onSleep = async () => {
      const { status } = (await h.store.get(volumeKey('data-01'))) as VolumeRecord;
      await h.setVolumeState('data-01', status.state === 'error' ? 'pending' : 'available');
    };
    const run = await h.cli(['wait', 'data-01', '--state', 'available']);
    expect(run.stderr).not.toContain('failed');
    expect(run.code).toBe(EXIT.ok);
    expect(run.stderr.trim().split('\n').at(-1)).toBe('done: volume data-01 is available (after 4s)');
  });

  it('waits for the retry of an attachment put right in the same way', async () => {
    await h.cli(['volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01', '--attach', INSTANCE_A]);
    await h.setVolumeState('data-01', 'available');
    await h.store.update<AttachmentRecord>(attachmentKey, { status: invalidRecordStatus(h.clock.now(), REASONS) });
    h.clock.onSleep = async () => {
      await h.store.update<AttachmentRecord>(attachmentKey, { status: { state: 'attached', attempts: 0, updatedAt: new Date(h.clock.now()).toISOString() }, device: '/dev/sdf' });
    };
    const run = await h.cli(['wait', 'data-01', '--attachment', INSTANCE_A, '--state', 'attached']);
    expect(run.code).toBe(EXIT.ok);
    expect(run.stderr.trim().split('\n').at(-1)).toBe(`done: attachment data-01 → ${INSTANCE_A} is attached (after 2s)`);
  });

  it('waits on an attachment whose volume was put right in the table: its retry comes without a client asking', async () => {
    await h.cli(['volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01', '--attach', INSTANCE_A]);
    await h.store.update<VolumeRecord>(volumeKey('data-01'), { status: invalidRecordStatus(h.clock.now(), REASONS) });
    h.clock.onSleep = async () => {
      await h.setVolumeState('data-01', 'in-use');
      await h.store.update<AttachmentRecord>(attachmentKey, { status: { state: 'attached', attempts: 0, updatedAt: new Date(h.clock.now()).toISOString() }, device: '/dev/sdf' });
    };
    const run = await h.cli(['wait', 'data-01', '--attachment', INSTANCE_A, '--state', 'attached']);
    expect(run.code).toBe(EXIT.ok);
    expect(run.stderr.trim().split('\n').at(-1)).toBe(`done: attachment data-01 → ${INSTANCE_A} is attached (after 2s)`);
  });

  it('waits for the removal of a dying volume put right in the table', async () => {
    await h.cli(['volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01']);
    await h.store.update<VolumeRecord>(volumeKey('data-01'), { life: 'dying', status: invalidRecordStatus(h.clock.now(), REASONS) });
    h.clock.onSleep = async () => void (await h.store.remove(volumeKey('data-01')));
    const run = await h.cli(['wait', 'data-01', '--state', 'deleted']);
    expect(run.code).toBe(EXIT.ok);
    expect(run.stderr.trim().split('\n').at(-1)).toBe('done: volume data-01 is deleted (after 2s)');
  });

  it('still stops (exit 4, no hint) on a record that is not valid, which the system does nothing with until it is put right', async () => {
    h.store.putRaw({ kind: 'volume', volumeId: 'bad', spec: { sizeGiB: 20, volumeType: 'gp3' }, life: 'alive', generation: '1', status: invalidRecordStatus(h.clock.now(), REASONS) });
    const run = await h.cli(['wait', 'bad', '--state', 'available']);
    expect(run.code).toBe(EXIT.errorState);
    expect(run.stderr).not.toContain('hint:');
  });
});
