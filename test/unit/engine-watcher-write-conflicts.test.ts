import { describe, expect, it } from 'vitest';
import { ConditionFailedError } from '../../lib/engine/ports.js';
import { RecordingLog } from '../../lib/memory/log.js';
import { OTHER_INSTANCE, attachmentKey, harness, newAttachment, newVolume, volumeKey } from './engine-fixtures.js';
import { modify, remove } from './watcher-fixtures.js';

const iso = (ms: number) => new Date(ms).toISOString();

describe('Watcher: writes that fail or lose to another change', () => {
  it("fails a volume's change when a write to one of its attachments fails for another reason than its size: the stream delivers it again", async () => {
    const log = new RecordingLog();
    const h = harness({ log });
    await h.store.create(newVolume('data-1'));
    await h.store.create(newAttachment('data-1'));
    await h.store.remove(volumeKey('data-1'));
    await h.watch();
    h.queue.receive(100);
    // Written again: its waiting attachment would say it waits for the volume now.
    await h.store.create(newVolume('data-1'));
    const change = h.changes.splice(0);
    h.store.failNext('update', new Error('Throughput exceeds the current capacity of your table'));
    expect(await h.watcher.handle(change)).toEqual({ failedChangeIds: change.map((c) => c.id) });
    expect(log.entries.filter((entry) => entry.level === 'error').map((entry) => [entry.message, entry.attributes?.error])).toEqual([
      ['handling record change failed', 'Throughput exceeds the current capacity of your table'],
    ]);
    // Nothing of the failed handling goes: delivered again, it is planned whole.
    expect(h.queued()).toEqual([]);
    expect(await h.watcher.handle(change)).toEqual({ failedChangeIds: [] });
    expect(h.queued()).toEqual([{ op: 'create-volume', key: 'data-1', delaySeconds: 0 }]);
    expect((await h.store.get(attachmentKey('data-1')))?.status).toMatchObject({ state: 'pending', message: 'waiting for volume data-1 to become available' });
  });

  it("fails a removed attachment's change when its volume's write fails for another reason than its size", async () => {
    const h = harness();
    await h.store.create(newVolume('data-1', { life: 'dying' }));
    await h.store.create(newAttachment('data-1', { life: 'dying' }));
    await h.store.create(newAttachment('data-1', { instanceId: OTHER_INSTANCE, life: 'dying' }));
    const removed = await h.store.get(attachmentKey('data-1'));
    await h.store.remove(attachmentKey('data-1'));
    const before = await h.store.get(volumeKey('data-1'));
    // The volume's wait for its last attachment is the write that fails.
    h.store.failNext('update', new Error('Throughput exceeds the current capacity of your table'));
    expect(await h.watcher.handle([remove(removed!)])).toEqual({ failedChangeIds: ['c1'] });
    expect(await h.store.get(volumeKey('data-1'))).toEqual(before);
  });

  it("makes no retry of a record in error whose retry write loses to another change: that change is handled on its own", async () => {
    const h = harness();
    const at = iso(h.clock.now());
    const failed = newVolume('data-1', { status: { state: 'error', code: 'InsufficientVolumeCapacity', message: 'gave up', attempts: 3, updatedAt: at } });
    h.store.putRaw(failed);
    const retried = { ...failed, generation: 2 };
    h.store.putRaw(retried);
    h.store.failNext('update', new ConditionFailedError('volume/data-1: version is 2'));
    expect(await h.watcher.handle([modify(failed, retried)])).toEqual({ failedChangeIds: [] });
    expect(h.queued()).toEqual([]);
    expect(await h.store.get(volumeKey('data-1'))).toMatchObject({ generation: 2, status: { state: 'error', attempts: 3 } });
  });

  it('still carries out the delete of a record made dying whose dropped-attempts write loses to another change, from the record as read: with nothing in EC2 it is removed', async () => {
    const h = harness();
    const at = iso(h.clock.now());
    // Pending with a failed CreateVolume attempt behind it (its retry is the delete's now): nothing exists in EC2.
    const live = newVolume('data-1', { status: { state: 'pending', code: 'RequestLimitExceeded', message: 'throttled', attempts: 1, updatedAt: at } });
    h.store.putRaw(live);
    const dying = { ...live, life: 'dying' as const };
    h.store.putRaw(dying);
    h.store.failNext('update', new ConditionFailedError('volume/data-1: version is 2'));
    expect(await h.watcher.handle([modify(live, dying)])).toEqual({ failedChangeIds: [] });
    expect(h.queued()).toEqual([]);
    expect(await h.store.get(volumeKey('data-1'))).toBeUndefined();
  });
});
