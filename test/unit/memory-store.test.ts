import { describe, expect, it } from 'vitest';
import { keyOf, type AttachmentRecord, type VolumeRecord } from '../../lib/domain/records.js';
import { ConditionFailedError, InvalidCursorError, ItemTooLargeError } from '../../lib/engine/ports.js';
import { approximateItemBytes, MemoryRecordStore, type RecordChangeEvent } from '../../lib/memory/store.js';
import { TABLE } from '../../lib/settings.js';
import { recordStoreContract } from '../support/record-store-contract.js';
import { volume, attachment } from './memory-store-fixtures.js';

describe('MemoryRecordStore', () => {
  it('creates once, and a second create fails with the current record', async () => {
    const store = new MemoryRecordStore();
    await store.create(volume('a'));
    const error = await store.create(volume('a')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConditionFailedError);
    expect((error as ConditionFailedError).current).toMatchObject({ volumeId: 'a', version: 1 });
  });

  it('copies on the way in; what it hands out cannot be changed in place', async () => {
    const store = new MemoryRecordStore();
    const record = volume('a');
    const changes: RecordChangeEvent[] = [];
    store.onChange((change) => changes.push(change));
    await store.create(record);
    record.spec.sizeGiB = 999;
    const read = (await store.get({ kind: 'volume', volumeId: 'a' })) as VolumeRecord;
    expect(() => {
      read.spec.sizeGiB = 500;
    }).toThrow(TypeError);
    const tags = { team: 'a' };
    const updated = await store.update<VolumeRecord>({ kind: 'volume', volumeId: 'a' }, { spec: { ...read.spec, tags } });
    tags.team = 'b';
    expect(() => {
      updated.status.state = 'available';
    }).toThrow(TypeError);
    expect(() => {
      (changes[1]!.newRecord as VolumeRecord).spec.tags!.team = 'c';
    }).toThrow(TypeError);
    const [listed] = (await store.list({ limit: 10 })).items as VolumeRecord[];
    expect(listed!.spec).toEqual({ ...volume('a').spec, tags: { team: 'a' } });
    expect(changes[0]!.newRecord).toMatchObject({ spec: { sizeGiB: 10 } });
  });

  it('updates with conditions, bumps the version, removes null fields, and never creates', async () => {
    const store = new MemoryRecordStore();
    const key = { kind: 'volume', volumeId: 'a' } as const;
    await store.create({ ...volume('a'), ebsVolumeId: 'vol-1' });
    const updated = await store.update<VolumeRecord>(key, { ebsVolumeId: null, generation: 2 }, { version: 1, life: 'alive' });
    expect(updated.version).toBe(2);
    expect(updated.ebsVolumeId).toBeUndefined();
    await expect(store.update<VolumeRecord>(key, { generation: 3 }, { version: 1 })).rejects.toThrow(/version is 2, expected 1/);
    await expect(store.update<VolumeRecord>(key, { generation: 3 }, { life: 'dying' })).rejects.toBeInstanceOf(ConditionFailedError);
    await expect(store.update<VolumeRecord>(key, { generation: 3 }, { generation: 1 })).rejects.toThrow(/generation is 2/);
    await expect(store.update<VolumeRecord>(key, { generation: 3 }, { createdAt: '1999-01-01T00:00:00.000Z' })).rejects.toThrow(/created at .*, expected 1999/);
    await expect(store.update<VolumeRecord>({ kind: "volume", volumeId: "gone" }, { generation: 1 })).rejects.toThrow(/does not exist/);
    expect(await store.get({ kind: 'volume', volumeId: 'gone' })).toBeUndefined();
  });

  it('takes an item written into the table without a version as version 0 and numbers it from 1 at its first update, as the DynamoDB store does', async () => {
    const store = new MemoryRecordStore();
    const { version: _none, ...raw } = volume('raw');
    store.putRaw(raw);
    const key = { kind: 'volume', volumeId: 'raw' } as const;
    await expect(store.update<VolumeRecord>(key, { generation: 2 }, { version: 1 })).rejects.toThrow(/version is undefined, expected 1/);
    expect((await store.update<VolumeRecord>(key, { generation: 2 }, { version: 0 })).version).toBe(1);
    await expect(store.update<VolumeRecord>(key, { generation: 3 }, { version: 0 })).rejects.toThrow(/version is 1, expected 0/);
    expect((await store.update<VolumeRecord>(key, { generation: 3 })).version).toBe(2);
  });

  it('grants a claim to one owner until it expires, then to another', async () => {
    const store = new MemoryRecordStore();
    const key = { kind: 'volume', volumeId: 'a' } as const;
    await store.create(volume('a'));
    expect((await store.claim(key, 'one', 1_000, 500)).ok).toBe(true);
    expect(await store.claim(key, 'two', 1_499, 500)).toMatchObject({ ok: false, reason: 'held' });
    expect((await store.claim(key, 'one', 1_200, 500)).ok).toBe(true);
    expect((await store.claim(key, 'two', 1_700, 500)).ok).toBe(true);
    await expect(store.update<VolumeRecord>(key, { generation: 2 }, { claimOwner: 'one' })).rejects.toThrow(/not held by one/);
    await expect(store.update<VolumeRecord>(key, { generation: 2 }, { claimOwner: 'two', now: 2_200 })).rejects.toThrow(/expired/);
    await store.update<VolumeRecord>(key, { generation: 2 }, { claimOwner: 'two', now: 2_199 });
    await store.release(key, 'one');
    expect((await store.get(key))?.claim?.owner).toBe('two');
    await store.release(key, 'two');
    expect((await store.get(key))?.claim).toBeUndefined();
    expect(await store.claim({ kind: 'volume', volumeId: 'none' }, 'x', 0, 1)).toEqual({ ok: false, reason: 'missing' });
  });

  it('lists in table order with a cursor, and finds attachments by volume and by instance', async () => {
    const store = new MemoryRecordStore();
    for (const id of ['c', 'a', 'b']) await store.create(volume(id));
    await store.create(attachment('a', 'i-2'));
    await store.create(attachment('a', 'i-1'));
    await store.create(attachment('b', 'i-1'));
    const first = await store.list({ limit: 2 });
    expect(first.items.map((r) => r.kind + r.volumeId)).toEqual(['attachmenta', 'attachmenta']);
    const second = await store.list({ limit: 10, cursor: first.cursor! });
    expect(second.items).toHaveLength(4);
    expect(second.cursor).toBeUndefined();
    expect((await store.list({ limit: 10, kind: 'volume' })).items.map((r) => r.volumeId)).toEqual(['a', 'b', 'c']);
    expect((await store.attachmentsOfVolume('a')).map((r) => r.instanceId)).toEqual(['i-1', 'i-2']);
    expect((await store.attachmentsOfInstance('i-1')).map((r) => r.volumeId)).toEqual(['a', 'b']);
    await expect(store.list({ limit: 1, cursor: 'bm9wZQ' })).rejects.toBeInstanceOf(InvalidCursorError);
  });

  it('goes on from a cursor whose item was removed since, and gives no cursor when no match is left after a full page', async () => {
    const store = new MemoryRecordStore();
    for (const id of ['a', 'b', 'c', 'd']) await store.create(volume(id));
    await store.create(attachment('d', 'i-1'));
    const first = await store.list({ limit: 2, kind: 'volume' });
    expect(first.items.map((r) => r.volumeId)).toEqual(['a', 'b']);
    await store.remove({ kind: 'volume', volumeId: 'b' });
    const second = await store.list({ limit: 2, kind: 'volume', cursor: first.cursor! });
    // The attachment sorts after d's volume record, but only volumes were asked for.
    expect(second.items.map((r) => r.volumeId)).toEqual(['c', 'd']);
    expect(second.cursor).toBeUndefined();
  });

  it('lists one segment of a parallel scan: the segments partition the table, a volume and its attachments in one, the same every time', async () => {
    const store = new MemoryRecordStore();
    for (let i = 0; i < 40; i++) {
      await store.create(volume(`v${i}`));
      if (i % 4 === 0) await store.create(attachment(`v${i}`, `i-${i}`));
    }
    const keyOfRecord = (r: { kind: string; volumeId: string; instanceId?: string }) => `${r.kind}/${r.volumeId}/${r.instanceId ?? ''}`;
    const listSegment = async (index: number, total: number) => {
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await store.list({ limit: 3, segment: { index, total }, ...(cursor ? { cursor } : {}) });
        seen.push(...page.items.map(keyOfRecord));
        cursor = page.cursor;
      } while (cursor);
      return seen;
    };
    const segments = await Promise.all([0, 1, 2, 3].map((index) => listSegment(index, 4)));
    expect(segments.flat().sort()).toEqual(store.all().map(keyOfRecord).sort());
    expect(segments.every((segment) => segment.length > 0 && segment.length < 40)).toBe(true);
    for (let i = 0; i < 40; i += 4) {
      expect(segments.findIndex((segment) => segment.includes(`volume/v${i}/`))).toBe(segments.findIndex((segment) => segment.includes(`attachment/v${i}/i-${i}`)));
    }
    expect(await listSegment(2, 4)).toEqual(segments[2]);
    expect(await listSegment(0, 1)).toEqual(store.all().map(keyOfRecord));

    // A cursor goes back only to its own segment, as DynamoDB's does.
    const first = await store.list({ limit: 1, segment: { index: 0, total: 4 } });
    await expect(store.list({ limit: 1, cursor: first.cursor!, segment: { index: 1, total: 4 } })).rejects.toBeInstanceOf(InvalidCursorError);
    await expect(store.list({ limit: 1, segment: { index: 4, total: 4 } })).rejects.toBeInstanceOf(RangeError);
    await expect(store.list({ limit: 1, segment: { index: 0, total: 0 } })).rejects.toBeInstanceOf(RangeError);
  });

  it('reports every write in order, like a NEW_AND_OLD_IMAGES stream', async () => {
    const store = new MemoryRecordStore();
    const changes: RecordChangeEvent[] = [];
    const stop = store.onChange((c) => changes.push(c));
    const key = { kind: 'volume', volumeId: 'a' } as const;
    await store.create(volume('a'));
    await store.update(key, { life: 'dying' });
    await store.remove(key);
    store.putRaw({ kind: 'volume', volumeId: 'raw', spec: 'not a spec' });
    stop();
    await store.create(volume('b'));
    expect(changes.map((c) => [c.eventName, c.sequenceNumber, c.oldRecord?.life, c.newRecord?.life])).toEqual([
      ['INSERT', 1, undefined, 'alive'],
      ['MODIFY', 2, 'alive', 'dying'],
      ['REMOVE', 3, 'dying', undefined],
      ['INSERT', 4, undefined, undefined],
    ]);
    expect(changes[3]?.newRecord).toMatchObject({ spec: 'not a spec' });
  });

  it('reports no change for an item written straight into the table as it already is, as DynamoDB Streams writes no record for a put that changes nothing', async () => {
    const store = new MemoryRecordStore();
    const changes: RecordChangeEvent[] = [];
    store.onChange((change) => changes.push(change));
    const { status, ...rest } = volume('raw');
    store.putRaw({ ...rest, status });
    // The same item, its fields in another order.
    store.putRaw({ status, ...rest });
    store.putRaw({ ...rest, status: { ...status, message: 'changed' } });
    expect(changes.map((change) => change.eventName)).toEqual(['INSERT', 'MODIFY']);
    expect(changes[1]!.newRecord?.status.message).toBe('changed');
  });

  it('refuses, as DynamoDB does, an item written straight into the table with a key too long or a number DynamoDB cannot hold, and writes nothing', () => {
    const store = new MemoryRecordStore();
    const changes: RecordChangeEvent[] = [];
    store.onChange((change) => changes.push(change));
    // At DynamoDB's limits: a partition key of 2 048 bytes, a sort key of 1 024.
    store.putRaw(volume('v'.repeat(2041)));
    store.putRaw(attachment('a', 'i'.repeat(1013)));
    store.putRaw({ ...volume('sizes'), spec: { ...volume('sizes').spec, sizeGiB: 9e125 }, status: { ...volume('sizes').status, attempts: 1e-130 } });
    expect(() => store.putRaw(volume('v'.repeat(2042)))).toThrow(/: the partition key is over DynamoDB's 2048 bytes$/);
    expect(() => store.putRaw(attachment('a', 'i'.repeat(1014)))).toThrow(/: the sort key is over DynamoDB's 1024 bytes$/);
    for (const sizeGiB of [Number.NaN, Number.POSITIVE_INFINITY, -1e126, 1e-131]) {
      expect(() => store.putRaw({ ...volume('bad'), spec: { ...volume('bad').spec, sizeGiB } })).toThrow(
        new Error(`volume/bad: spec.sizeGiB is ${sizeGiB}, a number DynamoDB cannot hold`),
      );
    }
    expect(store.all()).toHaveLength(3);
    expect(changes.map((change) => change.eventName)).toEqual(['INSERT', 'INSERT', 'INSERT']);
  });

  it('injects faults for a number of calls, and reads deduplicated keys once', async () => {
    const store = new MemoryRecordStore();
    await store.create(volume('a'));
    store.failNext('getMany', new Error('throttled'), 2);
    await expect(store.getMany([{ kind: 'volume', volumeId: 'a' }])).rejects.toThrow('throttled');
    await expect(store.getMany([{ kind: 'volume', volumeId: 'a' }])).rejects.toThrow('throttled');
    const before = store.reads;
    const found = await store.getMany([
      { kind: 'volume', volumeId: 'a' },
      { kind: 'volume', volumeId: 'a' },
      { kind: 'volume', volumeId: 'missing' },
    ]);
    expect(found.map((r) => r.volumeId)).toEqual(['a']);
    expect(store.reads - before).toBe(2);
  });

  it('counts an item as DynamoDB documents it: names and values in UTF-8, numbers by significant digits, maps and lists with their overhead', () => {
    expect(approximateItemBytes({ a: 'xyz', é: '€', n: 1234, ok: true, gone: null, list: ['ab', { c: 'd' }] })).toBe(
      1 + 3 + (2 + 3) + (1 + 3) + (2 + 1) + (4 + 1) + (4 + 3 + (2 + 1) + (3 + (1 + 1 + 1) + 1)),
    );
    // Two significant digits to a byte, and one; leading and trailing zeros trimmed.
    expect([0, 7, 1_000_000, 1_767_225_600_000, 0.25, -12.5, 1e21].map((n) => approximateItemBytes({ n }) - 1)).toEqual([2, 2, 2, 5, 2, 3, 2]);
  });

  it('counts the table keys an item is stored with, as DynamoDB does: a record that fits only without them is refused', async () => {
    const store = new MemoryRecordStore();
    // Attributes of exactly TABLE.maxItemBytes, less `room`.
    const filled = <R extends VolumeRecord | AttachmentRecord>(record: R, room: number): R => {
      const empty = { ...record, tagKeysSet: [''] };
      return { ...empty, tagKeysSet: ['x'.repeat(TABLE.maxItemBytes - approximateItemBytes(empty) - room)] };
    };
    // pk VOLUME#a, sk VOLUME; an attachment's also its instance index keys INSTANCE#i-1 and VOLUME#a.
    const volumeKeys = 2 + 8 + 2 + 6;
    const attachmentKeys = 2 + 8 + 2 + 14 + 6 + 12 + 6 + 8;
    await expect(store.create(filled(volume('a'), volumeKeys - 1))).rejects.toBeInstanceOf(ItemTooLargeError);
    await store.create(filled(volume('a'), volumeKeys));
    await expect(store.create(filled(attachment('a', 'i-1'), attachmentKeys - 1))).rejects.toBeInstanceOf(ItemTooLargeError);
    await store.create(filled(attachment('a', 'i-1'), attachmentKeys));
  });

  it('refuses, as DynamoDB does, a write that would make an item larger than 400 KB, and writes nothing', async () => {
    const store = new MemoryRecordStore();
    const changes: RecordChangeEvent[] = [];
    store.onChange((change) => changes.push(change));
    const near = TABLE.maxItemBytes - approximateItemBytes(volume('a')) - 200;
    const big = { ...volume('a'), spec: { ...volume('a').spec, tags: { big: 'x'.repeat(near) } } };
    await store.create(big);
    // Any write that grows it past the limit fails, whether the table's own or a client's.
    const message = 'y'.repeat(300);
    await expect(store.update(keyOf(big), { status: { ...big.status, message } })).rejects.toBeInstanceOf(ItemTooLargeError);
    await expect(store.claim(keyOf(big), 'owner-1', 0, 60_000)).resolves.toMatchObject({ ok: true });
    expect(() => store.putRaw({ ...big, status: { ...big.status, message } })).toThrow(ItemTooLargeError);
    await expect(store.create({ ...volume('b'), spec: { ...volume('b').spec, tags: { big: '€'.repeat(TABLE.maxItemBytes / 3) } } })).rejects.toBeInstanceOf(ItemTooLargeError);
    expect(store.all().map((record) => [record.volumeId, record.version, record.status.message])).toEqual([['a', 2, undefined]]);
    expect(changes.map((change) => change.eventName)).toEqual(['INSERT', 'MODIFY']);
  });
});

describe('MemoryRecordStore as DynamoDB', () => {
  recordStoreContract(async () => {
    const store = new MemoryRecordStore();
    return { store, putRaw: async (item) => store.putRaw(item) };
  });
});
