/**
 * A dying volume makes its live attachments dying (its cascade) before it is deleted. When that
 * work was lost (the watcher's batch given up), the reconciler nudges the volume (a check), saying
 * what is pending.
 */
import { describe, expect, it } from 'vitest';
import { Reconciler } from '../../lib/engine/reconciler.js';
import { FakeClock, MemoryEbs, MemoryOperationQueue, MemoryRecordStore, RecordingMetrics, silentLog } from '../../lib/memory/index.js';
import { OWNERSHIP_TAGS } from '../../lib/settings.js';
import { AZ, INSTANCE, newAttachment, newVolume } from './engine-fixtures.js';

const OWNER = 'stack-test';
const MINUTE = 60_000;

describe('reconciler, a dying volume whose cascade was lost', () => {
  it('is nudged with the cascade as its pending work', async () => {
    const clock = new FakeClock(Date.parse('2026-03-01T00:00:00Z'));
    const store = new MemoryRecordStore();
    const queue = new MemoryOperationQueue({ clock });
    const ebs = new MemoryEbs({ clock, ownerTagValue: OWNER, availabilityZones: [AZ] });
    ebs.addInstance({ instanceId: INSTANCE, availabilityZone: AZ });
    const reconciler = new Reconciler({ store, queue, provider: ebs, clock, metrics: new RecordingMetrics(), log: silentLog, config: { ownerTagValue: OWNER } });
    const { ebsVolumeId } = await ebs.createVolume({
      clientToken: 'doomed',
      availabilityZone: AZ,
      spec: { sizeGiB: 10, volumeType: 'gp3' },
      tags: { [OWNERSHIP_TAGS.owner]: OWNER, [OWNERSHIP_TAGS.record]: 'doomed' },
    });
    await clock.advance(10_000);
    await ebs.attachVolume({ ebsVolumeId, instanceId: INSTANCE, device: '/dev/sdf' });
    await clock.advance(10_000);
    const at = new Date(clock.now()).toISOString();
    await store.create(newVolume('doomed', { life: 'dying', ebsVolumeId, availabilityZone: AZ, status: { state: 'in-use', attempts: 0, updatedAt: at }, version: 0, createdAt: at }));
    await store.create(newAttachment('doomed', { device: '/dev/sdf', status: { state: 'attached', attempts: 0, updatedAt: at }, version: 0, createdAt: at }));
    await clock.advance(10 * MINUTE);

    const report = await reconciler.run();

    expect(report.requeued).toEqual([{ key: 'volume/doomed', reason: expect.stringMatching(/^work pending \(/) }]);
    expect(queue.pending().map((pending) => pending.message.op)).toEqual(['check-volume']);
  });
});
