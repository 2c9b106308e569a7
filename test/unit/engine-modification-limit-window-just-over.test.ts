/**
 * EC2 refuses a ModifyVolume for its modification limit while the latest start it lists has a
 * window (24 hours and our slack for EC2's clock) ending exactly at the refusal: that window is
 * over, so EC2 counts something else, and the wait is a full window from the refusal, not a retry
 * at once that EC2 would refuse again.
 */
import { describe, expect, it } from 'vitest';
import { MODIFICATION_WINDOW_MS } from '../../lib/domain/ebs-limits.js';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { Executor } from '../../lib/engine/executor.js';
import { ProviderError } from '../../lib/engine/ports.js';
import { EC2_TIME_SLACK_MS } from '../../lib/engine/status.js';
import { silentLog } from '../../lib/memory/log.js';
import { availableVolume, providerOver, volumeKey, volumeOf } from './engine-fixtures.js';

describe('a modification refused for the limit when the listed window ends at the refusal', () => {
  it('waits a whole window from the refusal', async () => {
    const h = await availableVolume({});
    const volume = await volumeOf(h);
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { spec: { ...volume.spec, sizeGiB: 20 }, generation: 2 });
    const refusedAt = h.clock.now();
    const provider = providerOver(h.ebs, {
      describeVolumeModifications: async () => [
        { ebsVolumeId: volume.ebsVolumeId!, state: 'completed', targetSizeGiB: 10, startedAt: refusedAt - MODIFICATION_WINDOW_MS - EC2_TIME_SLACK_MS },
      ],
    });
    h.ebs.failNext('ModifyVolume', new ProviderError('modification-cooldown', 'VolumeModificationRateExceeded', "You've reached the maximum modification rate per volume limit."));
    const executor = new Executor({ store: h.store, queue: h.queue, provider, clock: h.clock, metrics: h.metrics, log: silentLog, config: { rateWaitMaxMs: 0 } });
    await executor.run(h.batchOf(h.op('modify-volume', volumeKey('data-1'))));

    const waiting = await volumeOf(h);
    expect(waiting.status).toMatchObject({
      code: 'VolumeModificationRateExceeded',
      nextAttemptAt: new Date(refusedAt + MODIFICATION_WINDOW_MS + EC2_TIME_SLACK_MS).toISOString(),
    });
    expect(waiting.lastModificationStartedAt).toBe(new Date(refusedAt).toISOString());
  });
});
