import { describe, expect, it } from 'vitest';
import type { AttachmentRecord, VolumeRecord } from '../../lib/domain/records.js';
import { MemoryRecordStore } from '../../lib/memory/store.js';

const at = '2026-01-01T00:00:00.000Z';
const volume = (volumeId: string): VolumeRecord => ({
  kind: 'volume',
  volumeId,
  spec: { sizeGiB: 10, volumeType: 'gp3', availabilityZone: 'us-east-1a' },
  life: 'alive',
  generation: 1,
  status: { state: 'pending', attempts: 0, updatedAt: at },
  version: 0,
  createdAt: at,
});
const attachment = (volumeId: string, instanceId: string): AttachmentRecord => ({
  kind: 'attachment',
  volumeId,
  instanceId,
  life: 'alive',
  status: { state: 'pending', attempts: 0, updatedAt: at },
  version: 0,
  createdAt: at,
});

const listed = async (store: MemoryRecordStore) => (await store.list({ limit: 100 })).items.map((r) => (r.kind === 'attachment' ? `${r.volumeId}/${r.instanceId}` : r.volumeId));

describe('MemoryRecordStore: a scan after writes', () => {
  it('lists the items created and written straight into the table since the last scan, in table order', async () => {
    const store = new MemoryRecordStore();
    await store.create(volume('v2'));
    expect(await listed(store)).toEqual(['v2']);
    await store.create(volume('v1'));
    await store.create(attachment('v2', 'i-0000000000000000a'));
    store.putRaw(volume('v3'));
    expect(await listed(store)).toEqual(['v1', 'v2/i-0000000000000000a', 'v2', 'v3']);
    expect(store.all().map((r) => r.volumeId)).toEqual(['v1', 'v2', 'v2', 'v3']);
  });

  it('leaves out the items removed since the last scan', async () => {
    const store = new MemoryRecordStore();
    for (const id of ['v1', 'v2', 'v3']) await store.create(volume(id));
    await store.create(attachment('v2', 'i-0000000000000000a'));
    expect(await listed(store)).toEqual(['v1', 'v2/i-0000000000000000a', 'v2', 'v3']);
    await store.remove({ kind: 'volume', volumeId: 'v2' });
    await store.remove({ kind: 'attachment', volumeId: 'v2', instanceId: 'i-0000000000000000a' });
    expect(await listed(store)).toEqual(['v1', 'v3']);
    expect(await store.attachmentsOfVolume('v2')).toEqual([]);
    expect(await store.attachmentsOfInstance('i-0000000000000000a')).toEqual([]);
  });
});
