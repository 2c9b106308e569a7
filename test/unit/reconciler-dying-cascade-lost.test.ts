/**
 * A dying volume makes its live attachments dying (its cascade) before it is deleted. When that
 * work was lost (the watcher's batch given up), the reconciler nudges the volume (a check), saying
 * what is pending.
 */
import { describe, expect, it } from 'vitest';
import { AZ, INSTANCE, newAttachment, newVolume } from './engine-fixtures.js';
import { MINUTE, reconcilerWorld } from './reconciler-fixtures.js';

describe('reconciler, a dying volume whose cascade was lost', () => {
  it('is nudged with the cascade as its pending work', async () => {
    const { clock, store, queue, reconciler, ownedAndAttached } = reconcilerWorld({ availabilityZone: AZ, instances: [INSTANCE] });
    const { ebsVolumeId } = await ownedAndAttached('doomed', INSTANCE);
    const at = new Date(clock.now()).toISOString();
    await store.create(newVolume('doomed', { life: 'dying', ebsVolumeId, availabilityZone: AZ, status: { state: 'in-use', attempts: 0, updatedAt: at }, version: 0, createdAt: at }));
    await store.create(newAttachment('doomed', { device: '/dev/sdf', status: { state: 'attached', attempts: 0, updatedAt: at }, version: 0, createdAt: at }));
    await clock.advance(10 * MINUTE);

    const report = await reconciler.run();

    expect(report.requeued).toEqual([{ key: 'volume/doomed', reason: expect.stringMatching(/^work pending \(/) }]);
    expect(queue.pending().map((pending) => pending.message.op)).toEqual(['check-volume']);
  });
});
