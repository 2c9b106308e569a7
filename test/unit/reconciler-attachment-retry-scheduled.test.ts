/**
 * An attachment whose attach backs off after a failed call has its next attempt scheduled: until
 * that attempt is overdue its message is not lost, and the reconciler leaves it alone (a nudge
 * would only make the call early); once overdue, it is nudged, saying when it was due.
 */
import { describe, expect, it } from 'vitest';
import { AZ, INSTANCE, newAttachment, newVolume } from './engine-fixtures.js';
import { MINUTE, reconcilerWorld } from './reconciler-fixtures.js';

describe('reconciler, an attachment backing off before its next attach', () => {
  it('is left alone until its next attempt is overdue, then nudged', async () => {
    const { clock, store, queue, reconciler, owned } = reconcilerWorld({ availabilityZone: AZ, instances: [INSTANCE] });
    const { ebsVolumeId } = await owned('data-1');
    await clock.advance(MINUTE);
    const at = new Date(clock.now()).toISOString();
    const nextAttemptAt = new Date(clock.now() + 15 * MINUTE).toISOString();
    const volume = newVolume('data-1', {
      ebsVolumeId,
      availabilityZone: AZ,
      observed: { sizeGiB: 10, volumeType: 'gp3', tags: {} },
      observedGeneration: 1,
      status: { state: 'available', attempts: 0, updatedAt: at },
      version: 0,
      createdAt: at,
    });
    await store.create(volume);
    await store.create(
      newAttachment('data-1', {
        volumeCreatedAt: volume.createdAt,
        status: { state: 'pending', code: 'RequestLimitExceeded', message: 'Request limit exceeded.', attempts: 1, updatedAt: at, nextAttemptAt },
        version: 0,
        createdAt: at,
      }),
    );
    await clock.advance(10 * MINUTE);
    expect((await reconciler.run()).requeued).toEqual([]);
    expect(queue.pending()).toEqual([]);

    await clock.advance(10 * MINUTE);
    expect((await reconciler.run()).requeued).toEqual([{ key: `attachment/data-1/${INSTANCE}`, reason: `next attempt was due at ${nextAttemptAt}` }]);
  });
});
