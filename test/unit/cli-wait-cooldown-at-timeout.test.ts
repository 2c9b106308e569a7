/** A change EC2's limit on modifications lets through exactly at the wait's timeout is not "after" it: the wait goes on. */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { EXIT } from '../../cli/main.js';
import { cliHarness, volumeKey } from './cli-harness.js';

describe('CLI wait on a change allowed at its very timeout', () => {
  const h = cliHarness();

  it('waits on to the timeout and reaches the state the change brings then (exit 0), not exit 5', async () => {
    await h.cli(['volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01']);
    await h.store.update<VolumeRecord>(volumeKey('data-01'), { observedGeneration: 1 });
    await h.cli(['volumes', 'grow', 'data-01', '--size', '40']);
    const started = h.clock.now();
    const nextAttemptAt = new Date(started + 60_000).toISOString();
    await h.setVolumeState('data-01', 'in-use', { code: 'VolumeModificationRateExceeded', message: `trying again at ${nextAttemptAt}`, nextAttemptAt });
    h.clock.onSleep = async (now) => {
      if (now < started + 60_000) return;
      await h.setVolumeState('data-01', 'in-use');
      await h.store.update<VolumeRecord>(volumeKey('data-01'), { observedGeneration: 2 });
    };
    const run = await h.cli(['wait', 'data-01', '--state', 'in-use', '--timeout', '60', '--interval', '30']);
    expect(run.code).toBe(EXIT.ok);
    expect(run.stderr).toContain('done: volume data-01 is in-use (after 60s)');
  });
});
