/**
 * The record table failing at one of the executor's reads or writes between its EC2 calls: the
 * message whose work could not be done is delivered again (and nothing is called in EC2 on what
 * could not be read), while a read that only serves a shortcut (an attachment released at once, a
 * wait looked at again) or a note on a dead-lettered record loses just that.
 */
import { describe, expect, it } from 'vitest';
import type { ProviderVolume, RecordStore } from '../../lib/engine/ports.js';
import { QUEUE } from '../../lib/settings.js';
import { attachmentKey, executorOver, harness, newAttachment, newVolume, providerOver, volumeKey, volumeOf, attachmentOf } from './engine-fixtures.js';

const unavailable = () => new Error('DynamoDB unavailable');

/** `h`'s store, except that the `nth` call of `method` (counted from now) throws. */
function storeFailingCall(h: ReturnType<typeof harness>, method: keyof RecordStore, nth: number): RecordStore {
  let calls = 0;
  return new Proxy(h.store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function') return value;
      if (prop !== method) return value.bind(target);
      return async (...args: unknown[]) => {
        if (++calls === nth) throw unavailable();
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

/** data-1 available in EC2 and in its record. */
async function availableVolume(): Promise<ReturnType<typeof harness>> {
  const h = harness();
  await h.store.create(newVolume('data-1'));
  await h.watch();
  await h.settle(10_000);
  expect((await volumeOf(h)).status.state).toBe('available');
  return h;
}

describe('executor: the record table failing between EC2 calls', () => {
  it('a dying volume whose attachments cannot be read is not deleted; its message comes again and deletes it', async () => {
    const h = await availableVolume();
    const ebsVolumeId = (await volumeOf(h)).ebsVolumeId!;
    await h.store.update(volumeKey('data-1'), { life: 'dying' });
    const before = await volumeOf(h);

    h.store.failNext('attachmentsOfVolume', unavailable());
    const batch = h.batchOf(h.op('delete-volume', volumeKey('data-1')));
    expect((await h.executor.run(batch)).failedMessageIds).toEqual([batch[0]!.messageId]);
    expect(h.ebs.calls.DeleteVolume).toBe(0);
    expect(await volumeOf(h)).toEqual(before);

    expect((await h.executor.run(batch)).failedMessageIds).toEqual([]);
    expect(h.ebs.calls.DeleteVolume).toBe(1);
    await h.settle(10_000);
    expect(h.ebs.volume(ebsVolumeId)).toBeUndefined();
    expect(await h.store.get(volumeKey('data-1'))).toBeUndefined();
  });

  it("an attachment's wait that cannot be written leaves the record as it was and has its message delivered again", async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await h.store.create(newAttachment('data-1'));
    const before = await attachmentOf(h);

    h.store.failNext('update', unavailable());
    const batch = h.batchOf(h.op('attach', attachmentKey('data-1')));
    expect((await h.executor.run(batch)).failedMessageIds).toEqual([batch[0]!.messageId]);
    expect(await attachmentOf(h)).toEqual(before);

    expect((await h.executor.run(batch)).failedMessageIds).toEqual([]);
    const waiting = await attachmentOf(h);
    expect(waiting.status.state).toBe('pending');
    expect(waiting.version).toBeGreaterThan(before.version);
    expect(waiting.status.message).toMatch(/wait/i);
    expect(h.ebs.calls.AttachVolume).toBe(0);
  });

  it('a wait whose volume cannot be read again after it is written stays written, for the reconciler; the message is done', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await h.store.create(newAttachment('data-1'));
    // The batch's read succeeds; the read of the volume after the wait fails.
    const executor = executorOver(h, { store: storeFailingCall(h, 'getMany', 2) });
    const batch = h.batchOf(h.op('attach', attachmentKey('data-1')));
    expect((await executor.run(batch)).failedMessageIds).toEqual([]);
    expect((await attachmentOf(h)).status.message).toMatch(/wait/i);
    expect(h.queued()).toEqual([]);
  });

  it('a volume seen available whose attachments cannot be read releases none at once; the watcher then brings them', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await h.store.create(newAttachment('data-1'));
    await h.watch();
    await h.drain();
    expect((await volumeOf(h)).status.state).toBe('creating');
    expect((await attachmentOf(h)).status.state).toBe('pending');
    h.changes.splice(0);

    await h.clock.advance(5_000);
    h.store.failNext('attachmentsOfVolume', unavailable());
    const batch = h.batchOf(h.op('check-volume', volumeKey('data-1')));
    expect((await h.executor.run(batch)).failedMessageIds).toEqual([]);
    expect((await volumeOf(h)).status.state).toBe('available');
    expect(h.ebs.calls.AttachVolume).toBe(0);

    await h.watch();
    await h.settle(10_000);
    expect((await attachmentOf(h)).status.state).toBe('attached');
    expect(h.ebs.calls.AttachVolume).toBe(1);
  });
});

describe('executor: the note on a dead-lettered record cannot be made', () => {
  /** EC2 as `h` models it, but CreateVolume, made, answers with nothing the executor can read; `during` runs as it answers. */
  function answerOfNoShape(h: ReturnType<typeof harness>, during: () => void) {
    return providerOver(h.ebs, {
      createVolume: async (request) => {
        await h.ebs.createVolume(request);
        during();
        return undefined as unknown as ProviderVolume;
      },
    });
  }

  it('its record cannot be read: the record is left as the failed step left it, and the invocation still answers', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    const executor = executorOver(h, { provider: answerOfNoShape(h, () => h.store.failNext('getMany', unavailable())) });
    const last = { messageId: 'last', message: h.op('create-volume', volumeKey('data-1')), receiveCount: QUEUE.maxReceiveCount };
    expect((await executor.run([last])).failedMessageIds).toEqual(['last']);

    const volume = await volumeOf(h);
    expect(volume.status.state).toBe('creating');
    expect(volume.status.code).toBeUndefined();
    expect(volume.claim).toBeUndefined();
  });

  it('its status cannot be written: the record is left as the failed step left it, and the invocation still answers', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    // The table refuses the write of the note (and only that one).
    const store = new Proxy(h.store, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver) as unknown;
        if (typeof value !== 'function') return value;
        if (prop !== 'update') return value.bind(target);
        return async (...args: Parameters<RecordStore['update']>) => {
          if ((args[1] as { status?: { code?: string } }).status?.code === 'ExecutorFailed') throw unavailable();
          return target.update(...args);
        };
      },
    });
    const executor = executorOver(h, { store, provider: answerOfNoShape(h, () => undefined) });
    const last = { messageId: 'last', message: h.op('create-volume', volumeKey('data-1')), receiveCount: QUEUE.maxReceiveCount };
    expect((await executor.run([last])).failedMessageIds).toEqual(['last']);

    const volume = await volumeOf(h);
    expect(volume.status.state).toBe('creating');
    expect(volume.status.code).toBeUndefined();
    expect(volume.claim).toBeUndefined();
  });
});
