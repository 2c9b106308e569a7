/**
 * A pass starts no listing page of owned volumes within WRAP_UP_RESERVE_MS of the end of its
 * invocation: with exactly that time left it lists nothing (the leak check is left unfinished, no
 * count published); with a millisecond more it lists, and reports the volume no record owns.
 */
import { describe, expect, it } from 'vitest';
import { WRAP_UP_RESERVE_MS } from '../../lib/engine/reconciler.js';
import { METRICS } from '../../lib/settings.js';
import { AZ } from './engine-fixtures.js';
import { reconcilerWorld } from './reconciler-fixtures.js';

async function passWith(remainingTimeMs: number) {
  const { clock, ebs, metrics, reconciler, owned } = reconcilerWorld({ availabilityZone: AZ });
  const leaked = await owned('removed');
  await clock.advance(10_000);
  const listings = ebs.calls.DescribeVolumes;
  const report = await reconciler.run({ remainingTimeMs });
  return { report, leaked: leaked.ebsVolumeId, listings: ebs.calls.DescribeVolumes - listings, leakCount: metrics.counter(METRICS.leaked) };
}

describe('reconciler leak listing at the wrap-up reserve', () => {
  it('with exactly the wrap-up reserve left, lists no owned volumes', async () => {
    const { report, listings } = await passWith(WRAP_UP_RESERVE_MS);
    expect(report).toMatchObject({ leaked: [], leakCheckComplete: false });
    expect(listings).toBe(0);
  });

  it('with a millisecond more, lists them and reports the one no record owns', async () => {
    const { report, leaked, listings, leakCount } = await passWith(WRAP_UP_RESERVE_MS + 1);
    expect(report).toMatchObject({ leaked: [leaked], leakCheckComplete: true });
    expect(listings).toBeGreaterThan(0);
    expect(leakCount).toBe(1);
  });
});
