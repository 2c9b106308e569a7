import { describe, expect, it } from 'vitest';
import { MemoryRecordStore } from '../../lib/memory/store.js';
import { volume, attachment } from './memory-store-fixtures.js';

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
