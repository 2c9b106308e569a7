/**
 * A record in error is left alone by the reconciler only while it has nothing to do (it waits for
 * its client's retry). A dying volume in error still has its delete to make: once the next attempt
 * of that delete is overdue, its lost message is nudged, and the executor deletes it.
 */
import { describe, expect, it } from 'vitest';
import { Executor } from '../../lib/engine/executor.js';
import { Reconciler } from '../../lib/engine/reconciler.js';
import { FakeClock, MemoryEbs, MemoryOperationQueue, MemoryRecordStore, RecordingMetrics, silentLog } from '../../lib/memory/index.js';
import { OWNERSHIP_TAGS } from '../../lib/settings.js';
import { AZ, newVolume } from './engine-fixtures.js';

const OWNER = 'stack-test';
const MINUTE = 60_000;

describe('reconciler, a record in error with work left', () => {
  it("nudges a dying volume in error whose delete's next attempt is overdue, and the executor then deletes it", async () => {
    const clock = new FakeClock(Date.parse('2026-03-01T00:00:00Z'));
    const store = new MemoryRecordStore();
    const queue = new MemoryOperationQueue({ clock });
    const ebs = new MemoryEbs({ clock, ownerTagValue: OWNER, availabilityZones: [AZ] });
    const config = { ownerTagValue: OWNER };
    const reconciler = new Reconciler({ store, queue, provider: ebs, clock, metrics: new RecordingMetrics(), log: silentLog, config });
    const executor = new Executor({ store, queue, provider: ebs, clock, metrics: new RecordingMetrics(), log: silentLog, config, random: () => 0.5 });
    const { ebsVolumeId } = await ebs.createVolume({
      clientToken: 'doomed',
      availabilityZone: AZ,
      spec: { sizeGiB: 10, volumeType: 'gp3' },
      tags: { [OWNERSHIP_TAGS.owner]: OWNER, [OWNERSHIP_TAGS.record]: 'doomed' },
    });
    await clock.advance(10_000);
    const at = new Date(clock.now()).toISOString();
    const dueAt = new Date(clock.now() + 30_000).toISOString();
    // Its DeleteVolume timed out; the message of the next attempt was lost.
    await store.create(
      newVolume('doomed', {
        life: 'dying',
        ebsVolumeId,
        availabilityZone: AZ,
        status: { state: 'error', code: 'RequestTimeout', message: 'Request timed out', attempts: 1, updatedAt: at, nextAttemptAt: dueAt },
        version: 0,
        createdAt: at,
      }),
    );
    await clock.advance(10 * MINUTE);

    expect((await reconciler.run()).requeued).toEqual([{ key: 'volume/doomed', reason: `next attempt was due at ${dueAt}` }]);
    for (let round = 0; round < 20 && queue.pending().length > 0; round++) {
      const batch = queue.receive(10);
      if (batch.length === 0) {
        await clock.advanceTo(queue.nextVisibleAt()!);
        continue;
      }
      const { failedMessageIds } = await executor.run(batch.map((m) => ({ messageId: m.messageId, message: m.message, receiveCount: m.receiveCount })));
      for (const m of batch) if (!failedMessageIds.includes(m.messageId)) queue.delete(m.receiptHandle);
    }
    expect(ebs.calls.DeleteVolume).toBe(1);
    expect(ebs.volume(ebsVolumeId)?.state ?? 'deleted').not.toBe('available');
  });
});
