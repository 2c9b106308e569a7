/**
 * What every RecordStore does alike, run against the in-memory table (test/unit/memory-store.test.ts)
 * and against DynamoDB on moto (test/integration/aws-dynamodb-store.test.ts): the engine, the API
 * and the local runtime are tested on the one and deployed on the other, so what the first accepts,
 * refuses or returns must be what the second does.
 */
import { expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { ConditionFailedError, type RecordStore } from '../../lib/engine/ports.js';

export interface StoreUnderTest {
  store: RecordStore;
  /** Writes an item straight into the table, as a client bypassing the API could: its table keys from its identity fields. */
  putRaw(item: { kind: 'volume'; volumeId: string } & Record<string, unknown>): Promise<void>;
}

const T0 = '2026-01-01T00:00:00.000Z';

function volume(volumeId: string, overrides: Record<string, unknown> = {}): VolumeRecord & Record<string, unknown> {
  return {
    kind: 'volume',
    volumeId,
    spec: { sizeGiB: 20, volumeType: 'gp3', availabilityZone: 'us-east-1a' },
    life: 'alive',
    generation: 1,
    status: { state: 'pending', attempts: 0, updatedAt: T0 },
    version: 1,
    createdAt: T0,
    ...overrides,
  };
}

/** Registers the shared cases; `fresh` gives an empty table for each. */
export function recordStoreContract(fresh: () => Promise<StoreUnderTest>): void {
  it('holds a claim written by hand as null or without a numeric expiresAt as live: no other owner takes it, and a write conditioned on it as live fails', async () => {
    const { store, putRaw } = await fresh();
    await putRaw(volume('null-claim', { claim: null }));
    await putRaw(volume('no-expiry', { claim: { owner: 'someone' } }));
    for (const volumeId of ['null-claim', 'no-expiry']) {
      const key = { kind: 'volume', volumeId } as const;
      expect(await store.claim(key, 'executor-1', 1_000, 60_000), volumeId).toMatchObject({ ok: false, reason: 'held' });
    }
    const key = { kind: 'volume', volumeId: 'no-expiry' } as const;
    await expect(store.update(key, { life: 'dying' }, { claimOwner: 'someone', now: 1_000 })).rejects.toBeInstanceOf(ConditionFailedError);
    expect((await store.claim(key, 'someone', 1_000, 60_000)).ok).toBe(true);
  });

  it('refuses an item written straight into the table with a partition key over 2 048 bytes or a number DynamoDB cannot hold, and writes nothing', async () => {
    const { store, putRaw } = await fresh();
    await putRaw(volume('v'.repeat(2041)));
    await expect(putRaw(volume('v'.repeat(2042)))).rejects.toThrow();
    for (const sizeGiB of [Number.NaN, Number.POSITIVE_INFINITY]) {
      await expect(putRaw(volume('bad', { spec: { sizeGiB, volumeType: 'gp3', availabilityZone: 'us-east-1a' } })), String(sizeGiB)).rejects.toThrow();
    }
    expect((await store.list({ limit: 10 })).items.map((record) => record.volumeId.length)).toEqual([2041]);
  });

  it('takes version 0 for an item written without a version only: one whose version is null fails the condition', async () => {
    const { store, putRaw } = await fresh();
    const { version: _none, ...withoutVersion } = volume('none');
    await putRaw(withoutVersion);
    await putRaw(volume('null', { version: null }));
    expect((await store.update({ kind: 'volume', volumeId: 'none' }, { life: 'dying' }, { version: 0 })).version).toBe(1);
    await expect(store.update({ kind: 'volume', volumeId: 'null' }, { life: 'dying' }, { version: 0 })).rejects.toBeInstanceOf(ConditionFailedError);
    expect((await store.update({ kind: 'volume', volumeId: 'null' }, { life: 'dying' })).version).toBe(1);
  });

  it('refuses an update that names the record\'s identity, its version or a table key, and writes nothing', async () => {
    const { store, putRaw } = await fresh();
    await putRaw(volume('v1'));
    const key = { kind: 'volume', volumeId: 'v1' } as const;
    for (const field of ['kind', 'volumeId', 'instanceId', 'version', 'pk', 'gsi1pk']) {
      // Refused for the field it names, not for a TypeError raised on the way.
      const error = await store.update(key, { [field]: 'x' } as never).catch((e: unknown) => e);
      expect(error, field).toBeInstanceOf(TypeError);
      expect((error as TypeError).message, field).toBe(`${field} cannot be changed by an update`);
    }
    expect(await store.get(key)).toEqual(volume('v1'));
  });

  it('refuses a page size that is not a positive integer, as DynamoDB\'s Limit does', async () => {
    const { store, putRaw } = await fresh();
    await putRaw(volume('v1'));
    for (const limit of [0, -1, 2.5, Number.NaN]) {
      const error = await store.list({ limit }).catch((e: unknown) => e);
      expect(error, String(limit)).toBeInstanceOf(RangeError);
      expect((error as RangeError).message, String(limit)).toBe(`limit must be a positive integer, got ${limit}`);
    }
    expect((await store.list({ limit: 1 })).items).toEqual([volume('v1')]);
  });

  it('creates a record at version 1, whatever version it is given', async () => {
    const { store } = await fresh();
    await store.create(volume('v0', { version: 0 }));
    await store.create(volume('v7', { version: 7 }));
    expect((await store.get({ kind: 'volume', volumeId: 'v0' }))?.version).toBe(1);
    expect((await store.get({ kind: 'volume', volumeId: 'v7' }))?.version).toBe(1);
  });

  it('refuses to write a number the DynamoDB client does not write (NaN, an infinity, beyond Number.MAX_SAFE_INTEGER), and writes nothing', async () => {
    const { store } = await fresh();
    await store.create(volume('v1'));
    const key = { kind: 'volume', volumeId: 'v1' } as const;
    for (const n of [Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, -(2 ** 60)]) {
      // Refused for the number itself (both name it), not for any other reason a write may fail.
      const refused = async (write: Promise<unknown>, what: string) => {
        const error = await write.then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error, what).toBeInstanceOf(Error);
        expect(error, what).not.toBeInstanceOf(ConditionFailedError);
        expect((error as Error).message, what).toContain(String(n));
      };
      await refused(store.update<VolumeRecord>(key, { observedGeneration: n }), `observedGeneration ${n}`);
      await refused(store.update(key, { status: { state: 'pending', attempts: n, updatedAt: T0 } }), `status.attempts ${n}`);
      await refused(store.create(volume(`v-${n}`, { generation: n })), `generation ${n}`);
      expect(await store.get({ kind: 'volume', volumeId: `v-${n}` })).toBeUndefined();
    }
    // Refused before it is sent: not taken for a key already there.
    const again = await store.create(volume('v1', { generation: Number.NaN })).catch((error: unknown) => error);
    expect(again).toBeInstanceOf(Error);
    expect(again).not.toBeInstanceOf(ConditionFailedError);
    expect(await store.get(key)).toEqual(volume('v1'));
  });

  it('claims and releases an item written straight into the table with a version that is no number, numbering it afresh from 1 as an update does', async () => {
    const { store, putRaw } = await fresh();
    const key = { kind: 'volume', volumeId: 'text' } as const;
    await putRaw(volume('text', { version: 'abc' }));
    expect(await store.claim(key, 'executor-1', 1_000, 60_000)).toMatchObject({ ok: true, record: { version: 1, claim: { owner: 'executor-1', expiresAt: 61_000 } } });
    await putRaw(volume('text', { version: 'abc', claim: { owner: 'executor-1', expiresAt: 61_000 } }));
    await store.release(key, 'executor-1');
    expect(await store.get(key)).toEqual(volume('text'));
  });
}
