/**
 * A volume whose modification waits for EC2's limit (4 in any 24 hours) may wait for hours. When a
 * status write dropped that wait (the status still shows a retry backing off, its next attempt
 * scheduled), the planner still knows it from the recorded modification starts, and the reconciler
 * compares the volume with EC2 meanwhile, as it does when the status shows the wait: no retry is
 * coming to look before the limit ends.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { AZ, newVolume } from './engine-fixtures.js';
import { MINUTE, reconcilerWorld } from './reconciler-fixtures.js';

const HOUR = 60 * MINUTE;

describe("reconciler, a volume waiting for EC2's modification limit that its status does not show", () => {
  it('is looked at once EC2 no longer has its volume, before the retry its status shows', async () => {
    const { clock, store, ebs, reconciler, owned } = reconcilerWorld({ availabilityZone: AZ });
    const { ebsVolumeId } = await owned('limited');
    await clock.advance(6 * HOUR);
    const iso = (ms: number) => new Date(ms).toISOString();
    const now = clock.now();
    // A grow to 30 GiB asked for; EC2 started four modifications of the volume in the last 4 hours,
    // so it allows the next one 20 hours from now. The status shows a throttled call retried in 15 minutes.
    const limited: VolumeRecord = newVolume(
      'limited',
      {
        ebsVolumeId,
        availabilityZone: AZ,
        generation: 2,
        observed: { sizeGiB: 10, volumeType: 'gp3' },
        observedGeneration: 1,
        lastModificationStartedAt: iso(now - 1 * HOUR),
        earlierModificationStarts: [iso(now - 4 * HOUR), iso(now - 3 * HOUR), iso(now - 2 * HOUR)],
        status: {
          state: 'available',
          code: 'RequestLimitExceeded',
          message: 'Request limit exceeded.',
          attempts: 1,
          updatedAt: iso(now),
          nextAttemptAt: iso(now + 15 * MINUTE),
        },
        version: 0,
        createdAt: iso(now - 5 * HOUR),
      },
      { sizeGiB: 30 },
    );
    await store.create(limited);
    await clock.advance(6 * MINUTE);
    expect((await reconciler.run()).requeued).toEqual([]);

    ebs.deleteBehindBack(ebsVolumeId);
    await clock.advance(MINUTE);
    expect((await reconciler.run()).requeued).toEqual([{ key: 'volume/limited', reason: `EC2 no longer has ${ebsVolumeId}` }]);
  });
});
