/**
 * The watcher leaves changes the system made itself (status, claims) to the executor, and
 * recognises from their validated image, without reading the table, those that change nothing
 * for other records: only a volume's move that changes what its waiting attachments do or say
 * needs the table.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord, VolumeRecord } from '../../lib/domain/records.js';
import { attachmentKey, data1Created, harness, newAttachment, volumeKey } from './engine-fixtures.js';
import { modify } from './watcher-fixtures.js';

/** Volume data-1 created and available, every change it made seen by the watcher. */
async function availableVolume(h: ReturnType<typeof harness>): Promise<VolumeRecord> {
  await data1Created(h);
  const volume = (await h.store.get(volumeKey('data-1'))) as VolumeRecord;
  expect(volume.status.state).toBe('available');
  return volume;
}

describe('a change the system made itself that changes nothing for other records', () => {
  it('a claim on an available volume (its state unchanged) is settled from its image: no read, nothing sent', async () => {
    const h = harness();
    const volume = await availableVolume(h);
    await h.store.create(newAttachment('data-1', { instanceId: 'i-0aaaaaaaaaaaaaaa1' }));
    const claimed = await h.store.update<VolumeRecord>(volumeKey('data-1'), { claim: { owner: 'executor-1', expiresAt: h.clock.now() + 60_000 } });
    const reads = h.store.reads;
    expect(await h.watcher.handle([modify(volume, claimed)])).toEqual({ failedChangeIds: [] });
    expect(h.store.reads).toBe(reads);
    expect(h.queued()).toEqual([]);
  });

  it("an attachment's move into error is settled from its image: no read, nothing sent", async () => {
    const h = harness();
    await availableVolume(h);
    const attachment = newAttachment('data-1', { status: { state: 'attaching', attempts: 0, updatedAt: new Date(h.clock.now()).toISOString() } });
    await h.store.create(attachment);
    const failed = await h.store.update<AttachmentRecord>(attachmentKey('data-1'), {
      status: { state: 'error', code: 'IncorrectInstanceState', message: 'instance is terminated', attempts: 1, updatedAt: new Date(h.clock.now()).toISOString() },
    });
    const reads = h.store.reads;
    expect(await h.watcher.handle([modify(attachment, failed)])).toEqual({ failedChangeIds: [] });
    expect(h.store.reads).toBe(reads);
    expect(h.queued()).toEqual([]);
  });

  it("a dying volume's move from available into deleting is settled from its image: no read, nothing sent", async () => {
    const h = harness();
    await availableVolume(h);
    const dying = await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'dying' });
    const deleting = await h.store.update<VolumeRecord>(volumeKey('data-1'), { status: { ...dying.status, state: 'deleting' } });
    const reads = h.store.reads;
    expect(await h.watcher.handle([modify(dying, deleting)])).toEqual({ failedChangeIds: [] });
    expect(h.store.reads).toBe(reads);
    expect(h.queued()).toEqual([]);
  });
});
