import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { ConditionFailedError } from '../../lib/engine/ports.js';
import { MemoryRecordStore } from '../../lib/memory/store.js';
import { volume } from './memory-store-fixtures.js';

describe('MemoryRecordStore: items written straight into the table, then written through the store', () => {
  it('refuses to create over an item written by hand with only its key, as attribute_not_exists does, and leaves it as it was', async () => {
    const store = new MemoryRecordStore();
    store.putRaw({ kind: 'volume', volumeId: 'v1' });
    const error = await store.create(volume('v1')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConditionFailedError);
    expect(await store.get({ kind: 'volume', volumeId: 'v1' })).toEqual({ kind: 'volume', volumeId: 'v1' });
  });

  it('takes a claim whose expiresAt is a string of digits, not a number, as not live for a write conditioned on it, as DynamoDB compares a string with a number', async () => {
    const store = new MemoryRecordStore();
    store.putRaw({ ...volume('v1'), claim: { owner: 'executor-1', expiresAt: '99999999999999' } });
    const key = { kind: 'volume', volumeId: 'v1' } as const;
    const error = await store.update<VolumeRecord>(key, { life: 'dying' }, { claimOwner: 'executor-1', now: 1_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConditionFailedError);
    expect((error as Error).message).toContain('claim has expired');
    expect((await store.get(key))?.life).toBe('alive');
    // Nor does it lapse: no other owner takes it.
    expect(await store.claim(key, 'executor-2', 1_000, 60_000)).toMatchObject({ ok: false, reason: 'held' });
  });

  it('fails a write conditioned on a claim held by the empty string when another owner holds it', async () => {
    const store = new MemoryRecordStore();
    store.putRaw({ ...volume('v1'), claim: { owner: 'executor-1', expiresAt: 99_999 } });
    const key = { kind: 'volume', volumeId: 'v1' } as const;
    await expect(store.update<VolumeRecord>(key, { life: 'dying' }, { claimOwner: '' })).rejects.toBeInstanceOf(ConditionFailedError);
    expect((await store.get(key))?.life).toBe('alive');
  });
});
