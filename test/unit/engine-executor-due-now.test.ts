/**
 * A message's `dueAt` is the time before which the executor must not act: delivered at that very
 * time, the message is acted on, not sent round again; a millisecond early, it waits.
 */
import { describe, expect, it } from 'vitest';
import { harness, newVolume, volumeKey, volumeOf } from './engine-fixtures.js';

describe('executor: a message delivered at its dueAt', () => {
  it('is acted on: the volume is created and nothing is sent back for the message', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await h.executor.run(h.batchOf({ ...h.op('create-volume', volumeKey('data-1')), dueAt: h.clock.now() }));
    expect(h.ebs.calls.CreateVolume).toBe(1);
    expect((await volumeOf(h)).status.state).toBe('creating');
    expect(h.queued().filter((q) => q.op === 'create-volume')).toEqual([]);
  });

  it('a millisecond before it: nothing is called, the message comes back for its time', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await h.executor.run(h.batchOf({ ...h.op('create-volume', volumeKey('data-1')), dueAt: h.clock.now() + 1 }));
    expect(h.ebs.calls.CreateVolume).toBe(0);
    expect((await volumeOf(h)).status).toMatchObject({ state: 'pending', attempts: 0 });
    expect(h.queued().filter((q) => q.op === 'create-volume')).toEqual([{ op: 'create-volume', key: 'data-1', delaySeconds: 1 }]);
  });
});
