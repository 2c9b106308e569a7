/**
 * The leak check's limits: a listing EC2 fails for a passing fault (throttled, or a transient
 * fault such as an internal error) leaves the check unfinished, not the pass; and once the
 * wrap-up's time has come, the volumes no record owns are judged as listed, with no further
 * DescribeVolumes.
 */
import { describe, expect, it } from 'vitest';
import { WRAP_UP_RESERVE_MS } from '../../lib/engine/reconciler.js';
import { ProviderError } from '../../lib/engine/ports.js';
import { RecordingLog } from '../../lib/memory/index.js';
import { AZ, providerOver } from './engine-fixtures.js';
import { MINUTE, reconcilerWorld } from './reconciler-fixtures.js';

describe('reconciler leak check limits', () => {
  it('a listing EC2 fails with a transient fault leaves the leak check unfinished, and the pass ends', async () => {
    const log = new RecordingLog();
    const { reconciler } = reconcilerWorld({
      availabilityZone: AZ,
      log,
      provider: (ebs) =>
        providerOver(ebs, {
          listOwnedVolumes: () => Promise.reject(new ProviderError('transient', 'InternalError', 'An internal error has occurred.')),
        }),
    });

    const report = await reconciler.run();

    expect(report.leakCheckComplete).toBe(false);
    expect(log.entries).toContainEqual({
      level: 'warn',
      message: 'could not list owned volumes; the leak check waits for the next pass',
      attributes: { code: 'InternalError', error: 'An internal error has occurred.', listedSoFar: 0 },
    });
  });

  it('once the wrap-up time has come, judges the unowned volumes as listed, without describing them again', async () => {
    let end = Number.NaN;
    // The listing takes until the wrap-up's time (EC2 slow to answer).
    const { clock, ebs, reconciler, owned } = reconcilerWorld({
      availabilityZone: AZ,
      provider: (ebs, clock) =>
        providerOver(ebs, {
          listOwnedVolumes: async (options) => {
            const page = await ebs.listOwnedVolumes(options);
            await clock.advanceTo(end - WRAP_UP_RESERVE_MS);
            return page;
          },
        }),
    });
    const leaked = await owned('removed');
    await clock.advance(10_000);
    const remainingTimeMs = 10 * MINUTE;
    end = clock.now() + remainingTimeMs;
    const describes = ebs.calls.DescribeVolumes;

    const report = await reconciler.run({ remainingTimeMs });

    expect(report.leaked).toEqual([leaked.ebsVolumeId]);
    // The listing is its one DescribeVolumes: no second one asks EC2 whether they are still there.
    expect(ebs.calls.DescribeVolumes - describes).toBe(1);
  });
});
