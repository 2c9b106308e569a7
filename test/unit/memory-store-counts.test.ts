import { describe, expect, it } from 'vitest';
import { approximateItemBytes, MemoryRecordStore } from '../../lib/memory/store.js';
import { volume, attachment } from './memory-store-fixtures.js';

describe('MemoryRecordStore: what it counts', () => {
  it('counts a get as one item read, found or not, and a look-up of attachments as one per attachment found', async () => {
    const store = new MemoryRecordStore();
    await store.create(volume('v1'));
    await store.create(attachment('v1', 'i-0000000000000000a'));
    await store.create(attachment('v1', 'i-0000000000000000b'));
    const before = store.reads;
    await store.get({ kind: 'volume', volumeId: 'v1' });
    await store.get({ kind: 'volume', volumeId: 'missing' });
    expect(store.reads - before).toBe(2);
    await store.attachmentsOfVolume('v1');
    expect(store.reads - before).toBe(4);
    await store.attachmentsOfInstance('i-0000000000000000a');
    expect(store.reads - before).toBe(5);
  });

  it('counts a scan as one item read per item it returns', async () => {
    const store = new MemoryRecordStore();
    for (const id of ['v1', 'v2', 'v3']) await store.create(volume(id));
    const before = store.reads;
    const first = await store.list({ limit: 2 });
    expect(store.reads - before).toBe(2);
    await store.list({ limit: 2, cursor: first.cursor! });
    expect(store.reads - before).toBe(3);
  });

  it('counts no bytes for an attribute whose value is undefined, which is not written, at the top or in a map', () => {
    expect(approximateItemBytes({ name: 'ab', gone: undefined })).toBe(approximateItemBytes({ name: 'ab' }));
    expect(approximateItemBytes({ map: { a: 1, gone: undefined } })).toBe(approximateItemBytes({ map: { a: 1 } }));
  });
});
