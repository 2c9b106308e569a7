/**
 * A modification under way toward another spec is looked at again when a check of it would: soon
 * after it started, and less often the longer it has been running, as progress checks of a
 * modification are scheduled (`progressChecks['modify-volume']`).
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { DEFAULT_ENGINE_CONFIG } from '../../lib/engine/config.js';
import { Executor } from '../../lib/engine/executor.js';
import { silentLog } from '../../lib/memory/log.js';
import { availableVolume, providerOver, volumeKey, volumeOf } from './engine-fixtures.js';

const MINUTE = 60_000;

/** Seconds from the spec change's handling to the next look, for a modification toward 15 GiB started `runningMs` ago. */
async function nextLookAfter(runningMs: number): Promise<number> {
  const h = await availableVolume({});
  const volume = await volumeOf(h);
  await h.store.update<VolumeRecord>(volumeKey('data-1'), { spec: { ...volume.spec, sizeGiB: 20 }, generation: 2 });
  const provider = providerOver(h.ebs, {
    describeVolumeModifications: async () => [{ ebsVolumeId: volume.ebsVolumeId!, state: 'optimizing', targetSizeGiB: 15, startedAt: h.clock.now() - runningMs }],
  });
  const executor = new Executor({ store: h.store, queue: h.queue, provider, clock: h.clock, metrics: h.metrics, log: silentLog });
  await executor.run(h.batchOf(h.op('modify-volume', volumeKey('data-1'))));
  const { status } = await volumeOf(h);
  expect(status.code).toBe('IncorrectModificationState');
  return (Date.parse(status.nextAttemptAt!) - h.clock.now()) / 1000;
}

describe('waiting for a modification under way toward another spec', () => {
  it('looks again sooner for one just started than for one running for an hour, within the check schedule', async () => {
    const justStarted = await nextLookAfter(0);
    const runningAnHour = await nextLookAfter(60 * MINUTE);
    const schedule = DEFAULT_ENGINE_CONFIG.progressChecks['modify-volume'];
    expect(justStarted).toBeGreaterThan(0);
    expect(justStarted).toBeLessThanOrEqual(schedule.firstSeconds + 1);
    expect(runningAnHour).toBeGreaterThan(justStarted);
    expect(runningAnHour).toBeLessThanOrEqual(schedule.maxSeconds + 1);
  });
});
