/**
 * The status written for a record whose message is dead-lettered (the executor failed on it on
 * its last delivery): a next attempt due by then was that message's, so it is no longer shown as
 * queued; and a claim this invocation still holds (its release failed) does not keep the note off:
 * only another invocation's claim does, and the note lets go of it.
 */
import { describe, expect, it } from 'vitest';
import { Executor } from '../../lib/engine/executor.js';
import type { ProviderVolume } from '../../lib/engine/ports.js';
import { silentLog } from '../../lib/memory/index.js';
import { QUEUE } from '../../lib/settings.js';
import { answerOfNoShape, harness, newVolume, providerOver, volumeKey, volumeOf } from './engine-fixtures.js';

describe('the note on a dead-lettered record', () => {
  it('does not show a next attempt due at the very time of the note as still queued', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    // Another invocation's failed attempt set the next one for now; this one then meets an answer of no shape.
    const nextAttemptAt = new Date(h.clock.now()).toISOString();
    const provider = providerOver(h.ebs, {
      createVolume: async () => {
        await h.store.update(volumeKey('data-1'), { status: { state: 'pending', code: 'InternalError', attempts: 1, nextAttemptAt, updatedAt: nextAttemptAt } });
        return undefined as unknown as ProviderVolume;
      },
    });
    const executor = new Executor({ store: h.store, queue: h.queue, provider, clock: h.clock, metrics: h.metrics, log: silentLog, config: { rateWaitMaxMs: 0 } });
    const last = { messageId: 'last', message: h.op('create-volume', volumeKey('data-1')), receiveCount: QUEUE.maxReceiveCount };
    expect((await executor.run([last])).failedMessageIds).toEqual(['last']);

    const { status } = await volumeOf(h);
    expect(status.code).toBe('ExecutorFailed');
    expect(status.nextAttemptAt).toBeUndefined();
    expect(status.message).toMatch(/Nothing more is done until the reconciler looks at it again$/);
  });

  it("is written over this invocation's own claim, which it lets go", async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    const provider = answerOfNoShape(h);
    // The claim's release after the failed step fails: the record is still claimed by this invocation.
    let releases = 0;
    h.store.release = async () => {
      releases++;
      throw new Error('table unavailable');
    };
    const executor = new Executor({ store: h.store, queue: h.queue, provider, clock: h.clock, metrics: h.metrics, log: silentLog, config: { rateWaitMaxMs: 0 }, newOwnerId: () => 'me' });
    const last = { messageId: 'last', message: h.op('create-volume', volumeKey('data-1')), receiveCount: QUEUE.maxReceiveCount };
    expect((await executor.run([last])).failedMessageIds).toEqual(['last']);
    expect(releases).toBeGreaterThan(0);

    const volume = await volumeOf(h);
    expect(volume.status.code).toBe('ExecutorFailed');
    expect(volume.claim).toBeUndefined();
  });
});
