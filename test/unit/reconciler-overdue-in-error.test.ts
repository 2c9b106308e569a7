/**
 * A record in error is left alone by the reconciler only while it has nothing to do (it waits for
 * its client's retry). A dying volume in error still has its delete to make: once the next attempt
 * of that delete is overdue, its lost message is nudged, and the executor deletes it.
 */
import { describe, expect, it } from 'vitest';
import { AZ, newVolume } from './engine-fixtures.js';
import { MINUTE, reconcilerWorld } from './reconciler-fixtures.js';

describe('reconciler, a record in error with work left', () => {
  it("nudges a dying volume in error whose delete's next attempt is overdue, and the executor then deletes it", async () => {
    const { clock, store, queue, ebs, reconciler, executor, owned } = reconcilerWorld({ availabilityZone: AZ });
    const { ebsVolumeId } = await owned('doomed');
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
