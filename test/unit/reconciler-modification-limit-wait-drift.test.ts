/**
 * A volume whose modification waits for EC2's limit (4 in any 24 hours) may wait for hours, its
 * next attempt scheduled: the reconciler still compares it with EC2 meanwhile (a look then records
 * what changed outside), unlike a retry that backs off, whose look would only be put off.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { MODIFICATION_COOLDOWN_CODE } from '../../lib/engine/status.js';
import { AZ, newVolume } from './engine-fixtures.js';
import { MINUTE, reconcilerWorld } from './reconciler-fixtures.js';

describe("reconciler, a volume waiting for EC2's modification limit", () => {
  it('is looked at once EC2 no longer has its volume, hours before its next attempt', async () => {
    const { clock, store, ebs, reconciler, owned } = reconcilerWorld({ availabilityZone: AZ });
    const { ebsVolumeId } = await owned('cooling');
    await clock.advance(MINUTE);
    const at = new Date(clock.now()).toISOString();
    // A grow to 30 GiB asked for, waiting five hours for EC2's limit on modifications.
    const cooling: VolumeRecord = newVolume(
      'cooling',
      {
        ebsVolumeId,
        availabilityZone: AZ,
        generation: 2,
        observed: { sizeGiB: 10, volumeType: 'gp3' },
        observedGeneration: 1,
        status: {
          state: 'available',
          code: MODIFICATION_COOLDOWN_CODE,
          message: 'EC2 allows 4 modifications per volume in any 24 hours',
          attempts: 0,
          updatedAt: at,
          nextAttemptAt: new Date(clock.now() + 5 * 60 * MINUTE).toISOString(),
        },
        version: 0,
        createdAt: at,
      },
      { sizeGiB: 30 },
    );
    await store.create(cooling);
    await clock.advance(10 * MINUTE);
    expect((await reconciler.run()).requeued).toEqual([]);

    ebs.deleteBehindBack(ebsVolumeId);
    await clock.advance(5 * MINUTE);
    expect((await reconciler.run()).requeued).toEqual([{ key: 'volume/cooling', reason: `EC2 no longer has ${ebsVolumeId}` }]);
  });
});
