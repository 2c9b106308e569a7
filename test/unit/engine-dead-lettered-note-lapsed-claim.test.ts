/**
 * The note on a record whose message is dead-lettered is kept off only by another invocation's
 * live claim. A claim whose lease ends at the very time of the note has lapsed (live while now is
 * before its expiresAt, as the table compares it): the note is written and the claim let go.
 */
import { describe, expect, it } from 'vitest';
import { Executor } from '../../lib/engine/executor.js';
import type { ProviderVolume } from '../../lib/engine/ports.js';
import { silentLog } from '../../lib/memory/index.js';
import { QUEUE } from '../../lib/settings.js';
import { harness, newVolume, providerOver, volumeKey, volumeOf } from './engine-fixtures.js';

describe('the note on a dead-lettered record', () => {
  it("is written over another invocation's claim whose lease ends at the time of the note", async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    // During the call another invocation takes the record with a lease ending now; the call then meets an answer of no shape.
    const provider = providerOver(h.ebs, {
      createVolume: async () => {
        await h.store.update(volumeKey('data-1'), { claim: { owner: 'other', expiresAt: h.clock.now() } });
        return undefined as unknown as ProviderVolume;
      },
    });
    const executor = new Executor({ store: h.store, queue: h.queue, provider, clock: h.clock, metrics: h.metrics, log: silentLog, config: { rateWaitMaxMs: 0 }, newOwnerId: () => 'me' });
    const last = { messageId: 'last', message: h.op('create-volume', volumeKey('data-1')), receiveCount: QUEUE.maxReceiveCount };
    expect((await executor.run([last])).failedMessageIds).toEqual(['last']);

    const volume = await volumeOf(h);
    expect(volume.status.code).toBe('ExecutorFailed');
    expect(volume.status.message).toMatch(/its message went to the dead-letter queue/);
    expect(volume.claim).toBeUndefined();
  });

  it("is not written over another invocation's claim still live at the time of the note", async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    const provider = providerOver(h.ebs, {
      createVolume: async () => {
        await h.store.update(volumeKey('data-1'), { claim: { owner: 'other', expiresAt: h.clock.now() + 1 } });
        return undefined as unknown as ProviderVolume;
      },
    });
    const executor = new Executor({ store: h.store, queue: h.queue, provider, clock: h.clock, metrics: h.metrics, log: silentLog, config: { rateWaitMaxMs: 0 }, newOwnerId: () => 'me' });
    const last = { messageId: 'last', message: h.op('create-volume', volumeKey('data-1')), receiveCount: QUEUE.maxReceiveCount };
    expect((await executor.run([last])).failedMessageIds).toEqual(['last']);

    const volume = await volumeOf(h);
    expect(volume.status.code).not.toBe('ExecutorFailed');
    expect(volume.claim).toEqual({ owner: 'other', expiresAt: h.clock.now() + 1 });
  });
});
