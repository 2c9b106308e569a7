import { describe, expect, it } from 'vitest';
import { type VolumeRecord } from '../../lib/domain/records.js';
import { InvalidCursorError } from '../../lib/engine/ports.js';
import { MemoryRecordStore } from '../../lib/memory/store.js';
import { volume } from './memory-store-fixtures.js';

describe('MemoryRecordStore: items written straight into the table, and what an update leaves', () => {
  it('refuses a raw item the table could not key: no string volumeId, or an attachment without a string instanceId; nothing is written', async () => {
    const store = new MemoryRecordStore();
    expect(() => store.putRaw({ kind: 'volume', volumeId: 7 })).toThrow('a raw record needs a string volumeId');
    expect(() => store.putRaw(undefined)).toThrow('a raw record needs a string volumeId');
    expect(() => store.putRaw({ kind: 'attachment', volumeId: 'data-1' })).toThrow('a raw attachment needs a string instanceId');
    expect((await store.list({ limit: 10 })).items).toEqual([]);
  });

  it('leaves a field an update names as undefined as it is (null removes it)', async () => {
    const store = new MemoryRecordStore();
    await store.create({ ...volume('data-1'), ebsVolumeId: 'vol-0123456789abcdef0' });
    const written = await store.update<VolumeRecord>({ kind: 'volume', volumeId: 'data-1' }, { ebsVolumeId: undefined, life: 'dying' });
    expect(written).toMatchObject({ ebsVolumeId: 'vol-0123456789abcdef0', life: 'dying', version: 2 });
    const removed = await store.update<VolumeRecord>({ kind: 'volume', volumeId: 'data-1' }, { ebsVolumeId: null });
    expect(removed.ebsVolumeId).toBeUndefined();
    expect('ebsVolumeId' in removed).toBe(false);
  });

  it('refuses a cursor that is not base64url at all as invalid', async () => {
    const store = new MemoryRecordStore();
    await store.create(volume('data-1'));
    await expect(store.list({ limit: 1, cursor: '%%% not a cursor %%%' })).rejects.toBeInstanceOf(InvalidCursorError);
  });
});
