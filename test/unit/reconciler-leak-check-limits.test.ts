/**
 * The leak check's limits: a listing EC2 fails for a passing fault (throttled, or a transient
 * fault such as an internal error) leaves the check unfinished, not the pass; and once the
 * wrap-up's time has come, the volumes no record owns are judged as listed, with no further
 * DescribeVolumes.
 */
import { describe, expect, it } from 'vitest';
import { Reconciler, WRAP_UP_RESERVE_MS } from '../../lib/engine/reconciler.js';
import { ProviderError } from '../../lib/engine/ports.js';
import { FakeClock, MemoryEbs, MemoryOperationQueue, MemoryRecordStore, RecordingLog, RecordingMetrics, silentLog } from '../../lib/memory/index.js';
import { OWNERSHIP_TAGS } from '../../lib/settings.js';
import { AZ, providerOver } from './engine-fixtures.js';

const OWNER = 'stack-test';

function world() {
  const clock = new FakeClock(Date.parse('2026-03-01T00:00:00Z'));
  const store = new MemoryRecordStore();
  const queue = new MemoryOperationQueue({ clock });
  const ebs = new MemoryEbs({ clock, ownerTagValue: OWNER, availabilityZones: [AZ] });
  const owned = (record: string) =>
    ebs.createVolume({ clientToken: record, availabilityZone: AZ, spec: { sizeGiB: 10, volumeType: 'gp3' }, tags: { [OWNERSHIP_TAGS.owner]: OWNER, [OWNERSHIP_TAGS.record]: record } });
  return { clock, store, queue, ebs, owned };
}

describe('reconciler leak check limits', () => {
  it('a listing EC2 fails with a transient fault leaves the leak check unfinished, and the pass ends', async () => {
    const { clock, store, queue, ebs } = world();
    const log = new RecordingLog();
    const provider = providerOver(ebs, {
      listOwnedVolumes: () => Promise.reject(new ProviderError('transient', 'InternalError', 'An internal error has occurred.')),
    });
    const reconciler = new Reconciler({ store, queue, provider, clock, metrics: new RecordingMetrics(), log, config: { ownerTagValue: OWNER } });

    const report = await reconciler.run();

    expect(report.leakCheckComplete).toBe(false);
    expect(log.entries).toContainEqual({
      level: 'warn',
      message: 'could not list owned volumes; the leak check waits for the next pass',
      attributes: { code: 'InternalError', error: 'An internal error has occurred.', listedSoFar: 0 },
    });
  });

  it('once the wrap-up time has come, judges the unowned volumes as listed, without describing them again', async () => {
    const { clock, store, queue, ebs, owned } = world();
    const leaked = await owned('removed');
    await clock.advance(10_000);
    const remainingTimeMs = 10 * 60_000;
    const end = clock.now() + remainingTimeMs;
    // The listing takes until the wrap-up's time (EC2 slow to answer).
    const provider = providerOver(ebs, {
      listOwnedVolumes: async (options) => {
        const page = await ebs.listOwnedVolumes(options);
        await clock.advanceTo(end - WRAP_UP_RESERVE_MS);
        return page;
      },
    });
    const reconciler = new Reconciler({ store, queue, provider, clock, metrics: new RecordingMetrics(), log: silentLog, config: { ownerTagValue: OWNER } });
    const describes = ebs.calls.DescribeVolumes;

    const report = await reconciler.run({ remainingTimeMs });

    expect(report.leaked).toEqual([leaked.ebsVolumeId]);
    // The listing is its one DescribeVolumes: no second one asks EC2 whether they are still there.
    expect(ebs.calls.DescribeVolumes - describes).toBe(1);
  });
});
