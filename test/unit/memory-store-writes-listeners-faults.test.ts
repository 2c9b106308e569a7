import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { MemoryRecordStore, type RecordChangeEvent } from '../../lib/memory/store.js';
import { volume } from './memory-store-fixtures.js';

const key = (volumeId: string) => ({ kind: 'volume', volumeId }) as const;

describe('MemoryRecordStore: writes counted, every listener told, faults injected and cleared', () => {
  it('counts one write per create, update, claim, release, remove and item written straight into the table, one that changes nothing included', async () => {
    const store = new MemoryRecordStore();
    await store.create(volume('v1'));
    expect(store.writes).toBe(1);
    await store.update<VolumeRecord>(key('v1'), { life: 'dying' });
    expect(store.writes).toBe(2);
    await store.claim(key('v1'), 'executor-1', 1_000, 60_000);
    await store.release(key('v1'), 'executor-1');
    expect(store.writes).toBe(4);
    await store.remove(key('v1'));
    expect(store.writes).toBe(5);
    store.putRaw(volume('v2'));
    store.putRaw(volume('v2'));
    expect(store.writes).toBe(7);
  });

  it('keeps an item written straight into the table as it was written: changing the object given changes nothing stored', async () => {
    const store = new MemoryRecordStore();
    const raw = volume('v1');
    store.putRaw(raw);
    raw.life = 'dying';
    (raw.spec as { sizeGiB: number }).sizeGiB = 99;
    expect(await store.get(key('v1'))).toEqual(volume('v1'));
  });

  it('reports each write to every listener, and to none that stopped listening', async () => {
    const store = new MemoryRecordStore();
    const first: RecordChangeEvent[] = [];
    const second: RecordChangeEvent[] = [];
    store.onChange((change) => first.push(change));
    const stop = store.onChange((change) => second.push(change));
    await store.create(volume('v1'));
    stop();
    await store.create(volume('v2'));
    expect(first.map((c) => c.key.volumeId)).toEqual(['v1', 'v2']);
    expect(second.map((c) => c.key.volumeId)).toEqual(['v1']);
  });

  it('fails a claim and a release as told, and clearFaults drops the failures not yet made', async () => {
    const store = new MemoryRecordStore();
    await store.create(volume('v1'));
    store.failNext('claim', new Error('claim throttled'));
    await expect(store.claim(key('v1'), 'executor-1', 1_000, 60_000)).rejects.toThrow('claim throttled');
    expect((await store.claim(key('v1'), 'executor-1', 1_000, 60_000)).ok).toBe(true);
    store.failNext('release', new Error('release throttled'));
    await expect(store.release(key('v1'), 'executor-1')).rejects.toThrow('release throttled');
    store.failNext('get', new Error('get throttled'), 3);
    store.clearFaults();
    expect(await store.get(key('v1'))).toMatchObject({ claim: { owner: 'executor-1' } });
  });
});
