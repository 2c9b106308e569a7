import { CreateTableCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { GetRecordsCommand, GetShardIteratorCommand, DescribeStreamCommand } from '@aws-sdk/client-dynamodb-streams';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AwsClients } from '../../lib/aws/clients.js';
import { DynamoRecordStore } from '../../lib/aws/dynamodb-store.js';
import { fromStreamImage, toItem } from '../../lib/aws/record-item.js';
import { ensureTable, tableDefinition } from '../../lib/aws/table.js';
import type { AttachmentRecord, ProvisionerRecord, VolumeRecord } from '../../lib/domain/records.js';
import { ConditionFailedError, InvalidCursorError, ItemTooLargeError } from '../../lib/engine/ports.js';
import { describeWithMoto, motoClients } from '../support/moto.js';
import { recordStoreContract } from '../support/record-store-contract.js';

const T0 = '2026-01-01T00:00:00.000Z';

function volume(volumeId: string, overrides: Partial<VolumeRecord> = {}): VolumeRecord {
  return {
    kind: 'volume',
    volumeId,
    spec: { sizeGiB: 20, volumeType: 'gp3', availabilityZone: 'us-east-1a', tags: { team: 'storage' } },
    life: 'alive',
    generation: 1,
    status: { state: 'pending', attempts: 0, updatedAt: T0 },
    version: 1,
    createdAt: T0,
    ...overrides,
  };
}

function attachment(volumeId: string, instanceId: string, overrides: Partial<AttachmentRecord> = {}): AttachmentRecord {
  return {
    kind: 'attachment',
    volumeId,
    instanceId,
    life: 'alive',
    status: { state: 'pending', attempts: 0, updatedAt: T0 },
    version: 1,
    createdAt: T0,
    ...overrides,
  };
}

describeWithMoto('DynamoRecordStore against moto', (endpoint) => {
  let clients: AwsClients;
  let streamArn: string;
  let tableCount = 0;

  /** A fresh table per test keeps tests independent on one moto server. */
  async function freshStore(): Promise<{ store: DynamoRecordStore; tableName: string; streamArn: string }> {
    const tableName = `records-${++tableCount}`;
    const info = await ensureTable(clients.dynamo, tableName);
    return { store: new DynamoRecordStore({ client: clients.doc, tableName }), tableName, streamArn: info.streamArn };
  }

  beforeAll(async () => {
    clients = motoClients(endpoint());
    streamArn = (await ensureTable(clients.dynamo, 'records-0')).streamArn;
  });

  it('stores tags under any key EC2 allows, `constructor` included (a map holding it is no class instance)', async () => {
    const { store } = await freshStore();
    const tags = { constructor: 'x', toString: 'y', team: 'storage' };
    const v = volume('v-tags', { spec: { sizeGiB: 20, volumeType: 'gp3', availabilityZone: 'us-east-1a', tags } });
    await store.create(v);
    expect(await store.get({ kind: 'volume', volumeId: 'v-tags' })).toEqual(v);
    const observed = { sizeGiB: 20, volumeType: 'gp3' as const, tags: { constructor: 'z' } };
    await store.update<VolumeRecord>({ kind: 'volume', volumeId: 'v-tags' }, { observed });
    expect(await store.get({ kind: 'volume', volumeId: 'v-tags' })).toMatchObject({ spec: { tags }, observed });
  });

  describe('as the in-memory table', () => {
    recordStoreContract(async () => {
      const { store, tableName } = await freshStore();
      return { store, putRaw: async (item) => void (await clients.doc.send(new PutCommand({ TableName: tableName, Item: toItem(item as unknown as ProvisionerRecord) }))) };
    });
  });

  it('ensureTable is idempotent and returns the stream', async () => {
    const again = await ensureTable(clients.dynamo, 'records-0');
    expect(again.streamArn).toBe(streamArn);
  });

  it('ensureTable refuses a table that exists without the stream images or the instance index the watcher and the API need', async () => {
    const { GlobalSecondaryIndexes: _, AttributeDefinitions, ...withoutIndex } = tableDefinition('records-keys-only');
    await clients.dynamo.send(
      new CreateTableCommand({
        ...withoutIndex,
        AttributeDefinitions: AttributeDefinitions?.slice(0, 2), // the table's own keys
        StreamSpecification: { StreamEnabled: true, StreamViewType: 'KEYS_ONLY' },
      }),
    );
    await expect(ensureTable(clients.dynamo, 'records-keys-only')).rejects.toThrow(
      'table records-keys-only exists but it has no index byInstance; its stream is KEYS_ONLY, not NEW_AND_OLD_IMAGES; delete it to have it created as the provisioner needs',
    );
    const { StreamSpecification: __, ...withoutStream } = tableDefinition('records-no-stream');
    await clients.dynamo.send(new CreateTableCommand(withoutStream));
    await expect(ensureTable(clients.dynamo, 'records-no-stream')).rejects.toThrow(
      'table records-no-stream exists but it has no stream; delete it to have it created as the provisioner needs',
    );
  });

  it('creates and reads records; a second create fails carrying the current record', async () => {
    const { store } = await freshStore();
    const v = volume('v1');
    await store.create(v);
    expect(await store.get({ kind: 'volume', volumeId: 'v1' })).toEqual(v);
    expect(await store.get({ kind: 'volume', volumeId: 'nope' })).toBeUndefined();

    const error = await store.create(volume('v1', { generation: 7 })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConditionFailedError);
    expect((error as ConditionFailedError).current).toEqual(v);
  });

  it('updates set, remove (null) and bump version, honouring every condition field', async () => {
    const { store } = await freshStore();
    await store.create(volume('v1', { ebsVolumeId: 'vol-1' }));
    const key = { kind: 'volume', volumeId: 'v1' } as const;

    const written = await store.update<VolumeRecord>(
      key,
      { status: { state: 'creating', attempts: 0, updatedAt: T0 }, ebsVolumeId: null, observedGeneration: 1 },
      { version: 1, life: 'alive', generation: 1, createdAt: T0 },
    );
    expect(written.version).toBe(2);
    expect(written.status.state).toBe('creating');
    expect(written).not.toHaveProperty('ebsVolumeId');
    expect(await store.get(key)).toEqual(written);

    for (const condition of [{ version: 1 }, { life: 'dying' as const }, { generation: 2 }, { createdAt: '2026-01-01T00:00:00.001Z' }, { claimOwner: 'x' }]) {
      const error = await store.update<VolumeRecord>(key, { observedGeneration: 9 }, condition).catch((e: unknown) => e);
      expect(error, JSON.stringify(condition)).toBeInstanceOf(ConditionFailedError);
      expect((error as ConditionFailedError).current).toEqual(written);
    }
    expect(await store.get(key)).toEqual(written);
  });

  it('never creates a record on update or remove', async () => {
    const { store } = await freshStore();
    const key = { kind: 'volume', volumeId: 'gone' } as const;
    const error = await store.update<VolumeRecord>(key, { observedGeneration: 1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConditionFailedError);
    expect((error as ConditionFailedError).current).toBeUndefined();
    await expect(store.remove(key)).rejects.toBeInstanceOf(ConditionFailedError);
    expect(await store.get(key)).toBeUndefined();
  });

  it('removes under a condition', async () => {
    const { store } = await freshStore();
    await store.create(volume('v1', { life: 'dying' }));
    const key = { kind: 'volume', volumeId: 'v1' } as const;
    await expect(store.remove(key, { life: 'alive' })).rejects.toBeInstanceOf(ConditionFailedError);
    await store.remove(key, { life: 'dying', version: 1 });
    expect(await store.get(key)).toBeUndefined();
  });

  it('claims: free, held by another, expired, re-entrant; writes conditioned on the claim; release', async () => {
    const { store } = await freshStore();
    await store.create(volume('v1'));
    const key = { kind: 'volume', volumeId: 'v1' } as const;

    const first = await store.claim(key, 'exec-a', 1_000, 500);
    expect(first).toMatchObject({ ok: true, record: { claim: { owner: 'exec-a', expiresAt: 1_500 }, version: 2 } });
    expect(await store.claim(key, 'exec-b', 1_200, 500)).toMatchObject({
      ok: false,
      reason: 'held',
      record: { claim: { owner: 'exec-a' } },
    });
    expect(await store.claim(key, 'exec-a', 1_300, 500)).toMatchObject({ ok: true, record: { claim: { expiresAt: 1_800 } } });

    // Writes conditioned on a live claim.
    await store.update<VolumeRecord>(key, { observedGeneration: 1 }, { claimOwner: 'exec-a', now: 1_700 });
    await expect(store.update<VolumeRecord>(key, { observedGeneration: 2 }, { claimOwner: 'exec-a', now: 1_800 })).rejects.toBeInstanceOf(
      ConditionFailedError,
    );

    // Expired at 1_800: another owner may take it; the old owner's release is then a no-op.
    expect(await store.claim(key, 'exec-b', 1_800, 500)).toMatchObject({ ok: true, record: { claim: { owner: 'exec-b' } } });
    await store.release(key, 'exec-a');
    expect((await store.get(key))?.claim).toEqual({ owner: 'exec-b', expiresAt: 2_300 });
    await store.release(key, 'exec-b');
    expect((await store.get(key))?.claim).toBeUndefined();

    expect(await store.claim({ kind: 'volume', volumeId: 'missing' }, 'exec-a', 0, 1)).toEqual({ ok: false, reason: 'missing' });
    await store.release({ kind: 'volume', volumeId: 'missing' }, 'exec-a');
  });

  // One after the other: moto serves requests on threads and checks a condition and applies its
  // write without a lock between them, so truly concurrent claims may both pass there (DynamoDB
  // makes each conditional write atomic). What is checked is the condition every claimant sends.
  it('claims by several owners at the same clock time, one after another: the first wins, the others see its claim', async () => {
    const { store } = await freshStore();
    await store.create(volume('v1'));
    const key = { kind: 'volume', volumeId: 'v1' } as const;
    const results = [];
    for (const owner of ['a', 'b', 'c', 'd']) results.push(await store.claim(key, owner, 1_000, 60_000));
    expect(results[0]).toMatchObject({ ok: true, record: { claim: { owner: 'a', expiresAt: 61_000 } } });
    for (const result of results.slice(1)) expect(result).toMatchObject({ ok: false, reason: 'held', record: { claim: { owner: 'a' } } });
  });

  it('getMany reads more than one BatchGetItem chunk, skipping missing and duplicate keys', async () => {
    const { store } = await freshStore();
    const records = Array.from({ length: 130 }, (_, i) => volume(`v${i}`));
    await Promise.all(records.map((record) => store.create(record)));
    const keys = [
      ...records.map((record) => ({ kind: 'volume' as const, volumeId: record.volumeId })),
      { kind: 'volume' as const, volumeId: 'v3' },
      { kind: 'volume' as const, volumeId: 'missing' },
    ];
    const found = await store.getMany(keys);
    expect(found.map((record) => (record as VolumeRecord).volumeId).sort()).toEqual(
      records.map((record) => record.volumeId).sort(),
    );
    expect(await store.getMany([])).toEqual([]);
  });

  it('finds attachments by volume (table) and by instance (index)', async () => {
    const { store } = await freshStore();
    await store.create(volume('v1'));
    await store.create(volume('v2'));
    await store.create(attachment('v1', 'i-1', { requestedDevice: '/dev/sdf' }));
    await store.create(attachment('v1', 'i-2'));
    await store.create(attachment('v2', 'i-1'));

    const ofV1 = await store.attachmentsOfVolume('v1');
    expect(ofV1.map((a) => a.instanceId).sort()).toEqual(['i-1', 'i-2']);
    expect(ofV1.find((a) => a.instanceId === 'i-1')).toEqual(attachment('v1', 'i-1', { requestedDevice: '/dev/sdf' }));
    const ofI1 = await store.attachmentsOfInstance('i-1');
    expect(ofI1.map((a) => a.volumeId).sort()).toEqual(['v1', 'v2']);
    expect(await store.attachmentsOfInstance('i-none')).toEqual([]);
  });

  it('lists by instance an attachment item written straight into the table without its index keys (or naming another instance) from the first write on, and never under the instance its index keys name', async () => {
    const { store, tableName } = await freshStore();
    // Written by hand: a volume item with index keys; the record's fields and table keys, no index
    // keys; another with index keys naming another instance.
    await clients.doc.send(new PutCommand({ TableName: tableName, Item: { pk: 'VOLUME#v1', sk: 'VOLUME', gsi1pk: 'INSTANCE#i-9', gsi1sk: 'VOLUME#v1', ...volume('v1') } }));
    await clients.doc.send(new PutCommand({ TableName: tableName, Item: { pk: 'VOLUME#v1', sk: 'ATTACHMENT#i-1', ...attachment('v1', 'i-1') } }));
    await clients.doc.send(
      new PutCommand({ TableName: tableName, Item: { pk: 'VOLUME#v1', sk: 'ATTACHMENT#i-2', gsi1pk: 'INSTANCE#i-9', gsi1sk: 'VOLUME#v1', ...attachment('v1', 'i-2') } }),
    );
    expect(await store.attachmentsOfInstance('i-1')).toEqual([]);
    expect(await store.attachmentsOfInstance('i-9')).toEqual([]);

    await store.update({ kind: 'attachment', volumeId: 'v1', instanceId: 'i-1' }, { status: { state: 'pending', attempts: 0, updatedAt: T0, message: 'seen' } });
    expect((await store.claim({ kind: 'attachment', volumeId: 'v1', instanceId: 'i-2' }, 'executor-1', Date.parse(T0), 60_000)).ok).toBe(true);

    expect((await store.attachmentsOfInstance('i-1')).map((a) => a.volumeId)).toEqual(['v1']);
    expect((await store.attachmentsOfInstance('i-2')).map((a) => a.volumeId)).toEqual(['v1']);
    expect(await store.attachmentsOfInstance('i-9')).toEqual([]);
  });

  it('lists every record exactly once across pages, optionally by kind; rejects a forged cursor', async () => {
    const { store } = await freshStore();
    const all: ProvisionerRecord[] = [];
    for (let i = 0; i < 12; i++) {
      all.push(volume(`v${i}`));
      if (i % 3 === 0) all.push(attachment(`v${i}`, `i-${i}`));
    }
    await Promise.all(all.map((record) => store.create(record)));

    async function listAll(kind?: 'volume' | 'attachment'): Promise<ProvisionerRecord[]> {
      const seen: ProvisionerRecord[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await store.list({ limit: 5, cursor, ...(kind ? { kind } : {}) });
        expect(page.items.length).toBeLessThanOrEqual(5);
        seen.push(...page.items);
        cursor = page.cursor;
        expect(++pages).toBeLessThan(20);
      } while (cursor !== undefined);
      return seen;
    }
    const keyOfRecord = (r: ProvisionerRecord) => (r.kind === 'volume' ? r.volumeId : `${r.volumeId}/${r.instanceId}`);
    const everything = await listAll();
    expect(everything.map(keyOfRecord).sort()).toEqual(all.map(keyOfRecord).sort());
    const attachments = await listAll('attachment');
    expect(attachments.map(keyOfRecord).sort()).toEqual(['v0/i-0', 'v3/i-3', 'v6/i-6', 'v9/i-9']);
    // Twelve volumes in one scan of more than a page: each page ends at its last volume, and the next starts right after it.
    const volumes = await listAll('volume');
    expect(volumes.map(keyOfRecord).sort()).toEqual(all.filter((r) => r.kind === 'volume').map(keyOfRecord).sort());
    expect(volumes.every((r) => r.kind === 'volume')).toBe(true);

    await expect(store.list({ limit: 5, cursor: 'not-a-cursor' })).rejects.toBeInstanceOf(InvalidCursorError);
  });

  it('lists one segment of a parallel scan: the segments partition the table, a volume and its attachments in one', async () => {
    const { store } = await freshStore();
    const all: ProvisionerRecord[] = [];
    for (let i = 0; i < 24; i++) {
      all.push(volume(`v${i}`));
      if (i % 3 === 0) all.push(attachment(`v${i}`, `i-${i}`));
    }
    await Promise.all(all.map((record) => store.create(record)));
    const keyOfRecord = (r: ProvisionerRecord) => (r.kind === 'volume' ? r.volumeId : `${r.volumeId}/${r.instanceId}`);
    const segments: string[][] = [];
    for (let index = 0; index < 4; index++) {
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await store.list({ limit: 3, segment: { index, total: 4 }, ...(cursor ? { cursor } : {}) });
        seen.push(...page.items.map(keyOfRecord));
        cursor = page.cursor;
      } while (cursor !== undefined);
      segments.push(seen);
    }
    expect(segments.flat().sort()).toEqual(all.map(keyOfRecord).sort());
    expect(segments.filter((segment) => segment.length > 0).length).toBeGreaterThan(1);
    for (let i = 0; i < 24; i += 3) expect(segments.findIndex((s) => s.includes(`v${i}`))).toBe(segments.findIndex((s) => s.includes(`v${i}/i-${i}`)));
  });

  it('reads an item written straight into the table with identity from its keys', async () => {
    const { store, tableName } = await freshStore();
    await clients.doc.send(
      new PutCommand({ TableName: tableName, Item: { pk: 'VOLUME#raw', sk: 'VOLUME', spec: { sizeGiB: 'big' } } }),
    );
    expect(await store.get({ kind: 'volume', volumeId: 'raw' })).toEqual({
      kind: 'volume',
      volumeId: 'raw',
      spec: { sizeGiB: 'big' },
    });
  });

  it('takes an item written straight into the table without a version as version 0: a write conditioned on it holds, and bumps it to 1', async () => {
    const { store, tableName } = await freshStore();
    await clients.doc.send(new PutCommand({ TableName: tableName, Item: { pk: 'VOLUME#raw', sk: 'VOLUME', life: 'alive' } }));
    await expect(store.update({ kind: 'volume', volumeId: 'raw' }, { life: 'dying' }, { version: 1 })).rejects.toBeInstanceOf(ConditionFailedError);
    const written = await store.update({ kind: 'volume', volumeId: 'raw' }, { life: 'dying' }, { version: 0 });
    expect(written).toMatchObject({ life: 'dying', version: 1 });
    // Now it has one: version 0 no longer matches.
    await expect(store.update({ kind: 'volume', volumeId: 'raw' }, { life: 'alive' }, { version: 0 })).rejects.toBeInstanceOf(ConditionFailedError);
  });

  it('numbers afresh from 1 an item written straight into the table with a version that is no number', async () => {
    const { store, tableName } = await freshStore();
    for (const [id, version] of [['text', 'abc'], ['null', null]] as const) {
      await clients.doc.send(new PutCommand({ TableName: tableName, Item: { pk: `VOLUME#${id}`, sk: 'VOLUME', life: 'alive', version } }));
      const written = await store.update({ kind: 'volume', volumeId: id }, { life: 'dying' });
      expect(written).toMatchObject({ life: 'dying', version: 1 });
      expect((await store.update({ kind: 'volume', volumeId: id }, { life: 'alive' }, { version: 1 })).version).toBe(2);
    }
  });

  it('reads numbers written by hand beyond what JavaScript holds exactly, in every read', async () => {
    const { store, tableName } = await freshStore();
    await store.create(volume('ok'));
    await clients.dynamo.send(
      new PutItemCommand({
        TableName: tableName,
        Item: {
          pk: { S: 'VOLUME#huge' },
          sk: { S: 'VOLUME' },
          version: { N: '12345678901234567890.5' },
          spec: { M: { sizeGiB: { N: '100000000000000000000' }, volumeType: { S: 'gp3' } } },
        },
      }),
    );
    const huge = { kind: 'volume', volumeId: 'huge', version: Number('12345678901234567890.5'), spec: { sizeGiB: 1e20, volumeType: 'gp3' } };
    expect(await store.get({ kind: 'volume', volumeId: 'huge' })).toEqual(huge);
    expect(await store.getMany([{ kind: 'volume', volumeId: 'huge' }, { kind: 'volume', volumeId: 'ok' }])).toHaveLength(2);
    expect((await store.list({ limit: 10 })).items).toEqual(expect.arrayContaining([huge, volume('ok')]));
    const failed = await store
      .update({ kind: 'volume', volumeId: 'huge' }, { life: 'dying' }, { version: 1 })
      .catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(ConditionFailedError);
    expect((failed as ConditionFailedError).current).toEqual(huge);
  });

  it('refuses a write that would make an item larger than 400 KB with ItemTooLargeError', async () => {
    const { store } = await freshStore();
    await expect(store.create(volume('huge', { createdAt: 'x'.repeat(410_000) }))).rejects.toBeInstanceOf(ItemTooLargeError);
    // Near the limit, as a client may write it: a long status on top of it does not fit.
    await store.create(volume('v1', { createdAt: 'x'.repeat(400_000) }));
    const status = { state: 'error' as const, attempts: 0, updatedAt: T0, message: 'y'.repeat(10_000) };
    await expect(store.update({ kind: 'volume', volumeId: 'v1' }, { status })).rejects.toBeInstanceOf(ItemTooLargeError);
    // (moto applies the version bump of the refused update all the same; DynamoDB applies none of it.)
    expect((await store.get({ kind: 'volume', volumeId: 'v1' }))?.status).toEqual(volume('v1').status);
    expect(await store.get({ kind: 'volume', volumeId: 'huge' })).toBeUndefined();
  });

  it('streams every change with old and new images', async () => {
    const { store, streamArn: arn } = await freshStore();
    await store.create(volume('v1'));
    await store.update<VolumeRecord>({ kind: 'volume', volumeId: 'v1' }, { observedGeneration: 1 });
    await store.remove({ kind: 'volume', volumeId: 'v1' });

    const { StreamDescription } = await clients.streams.send(new DescribeStreamCommand({ StreamArn: arn }));
    expect(StreamDescription?.StreamViewType).toBe('NEW_AND_OLD_IMAGES');
    const shardId = StreamDescription!.Shards![0]!.ShardId!;
    const { ShardIterator } = await clients.streams.send(
      new GetShardIteratorCommand({ StreamArn: arn, ShardId: shardId, ShardIteratorType: 'TRIM_HORIZON' }),
    );
    const { Records } = await clients.streams.send(new GetRecordsCommand({ ShardIterator }));
    expect(Records?.map((r) => r.eventName)).toEqual(['INSERT', 'MODIFY', 'REMOVE']);
    const modify = Records![1]!.dynamodb!;
    expect(modify.Keys).toEqual({ pk: { S: 'VOLUME#v1' }, sk: { S: 'VOLUME' } });
    expect(modify.OldImage?.version).toEqual({ N: '1' });
    expect(modify.NewImage?.version).toEqual({ N: '2' });
    expect(modify.NewImage?.observedGeneration).toEqual({ N: '1' });
    expect(Records![2]!.dynamodb!.OldImage?.pk).toEqual({ S: 'VOLUME#v1' });
    // The watcher reads images back into records the same way the store reads items.
    expect(fromStreamImage(Records![0]!.dynamodb!.NewImage!)).toEqual(volume('v1'));
    expect(fromStreamImage(modify.NewImage!)).toEqual({ ...volume('v1'), version: 2, observedGeneration: 1 });
    expect(Records![2]!.dynamodb!.NewImage).toBeUndefined();
  });
});
