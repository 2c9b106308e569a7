import { ConditionalCheckFailedException, DynamoDBClient, DynamoDBServiceException, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DeleteCommand, DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DynamoRecordStore, UnprocessedKeysError } from '../../lib/aws/dynamodb-store.js';
import { fromItem, fromStreamImage, ITEM_MARSHALL_OPTIONS, keyFromStreamKeys, toItem } from '../../lib/aws/record-item.js';
import type { AttachmentRecord, RecordKey, VolumeRecord } from '../../lib/domain/records.js';
import { parseRecord } from '../../lib/domain/validation.js';
import { newVolume } from './engine-fixtures.js';
import { ConditionFailedError, InvalidCursorError, ItemTooLargeError } from '../../lib/engine/ports.js';

const doc = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
const dynamo = mockClient(doc);
const T0 = '2026-01-01T00:00:00.000Z';

function store(sleeps: number[] = []): DynamoRecordStore {
  return new DynamoRecordStore({
    client: doc,
    tableName: 'records',
    unprocessedRetry: { maxAttempts: 4, baseDelayMs: 10, sleep: async (ms) => void sleeps.push(ms) },
  });
}

const volumeKey = (i: number): RecordKey => ({ kind: 'volume', volumeId: `v${i}` });
const itemFor = (key: Record<string, unknown>) => ({ ...key, kind: 'volume', volumeId: String(key.pk).slice(7) });

describe('DynamoRecordStore requests', () => {
  beforeEach(() => dynamo.reset());
  afterEach(() => vi.restoreAllMocks());

  it('retries unprocessed keys with backoff until all are read', async () => {
    const sleeps: number[] = [];
    // Full jitter: a random part of the backoff, here the whole of it.
    vi.spyOn(Math, 'random').mockReturnValue(0.999);
    dynamo
      .on(BatchGetCommand)
      .callsFakeOnce((input) => {
        const keys = input.RequestItems.records.Keys as Record<string, unknown>[];
        return {
          Responses: { records: keys.slice(0, 2).map(itemFor) },
          UnprocessedKeys: { records: { Keys: keys.slice(2), ConsistentRead: true } },
        };
      })
      .callsFake((input) => ({ Responses: { records: (input.RequestItems.records.Keys as Record<string, unknown>[]).map(itemFor) } }));
    const records = await store(sleeps).getMany([0, 1, 2, 3, 4].map(volumeKey));
    expect(records.map((r) => (r as VolumeRecord).volumeId).sort()).toEqual(['v0', 'v1', 'v2', 'v3', 'v4']);
    const calls = dynamo.commandCalls(BatchGetCommand).map((c) => c.args[0].input.RequestItems!.records!.Keys);
    expect(calls).toEqual([
      [0, 1, 2, 3, 4].map((i) => ({ pk: `VOLUME#v${i}`, sk: 'VOLUME' })),
      [2, 3, 4].map((i) => ({ pk: `VOLUME#v${i}`, sk: 'VOLUME' })),
    ]);
    expect(sleeps).toEqual([9.99]);
  });

  it('gives up after the retry budget with the count of unread keys', async () => {
    const sleeps: number[] = [];
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    dynamo.on(BatchGetCommand).callsFake((input) => ({
      Responses: { records: [] },
      UnprocessedKeys: { records: { Keys: input.RequestItems.records.Keys } },
    }));
    const error = await store(sleeps).getMany([volumeKey(1), volumeKey(2)]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnprocessedKeysError);
    expect((error as UnprocessedKeysError).unprocessed).toBe(2);
    expect(dynamo.commandCalls(BatchGetCommand)).toHaveLength(4);
    // Exponential backoff with full jitter: each wait a random part (here half) of base * 2^(retry-1).
    expect(sleeps).toEqual([5, 10, 20]);
  });

  it('reads a record, a batch of records and a volume\'s attachments strongly consistently; only the instance index, which cannot, reads eventually', async () => {
    dynamo.on(GetCommand).resolves({ Item: { pk: 'VOLUME#v1', sk: 'VOLUME' } });
    dynamo.on(BatchGetCommand).callsFake((input) => ({ Responses: { records: (input.RequestItems.records.Keys as Record<string, unknown>[]).map(itemFor) } }));
    dynamo.on(QueryCommand).resolves({ Items: [] });
    await store().get(volumeKey(1));
    await store().getMany([volumeKey(1), volumeKey(2)]);
    await store().attachmentsOfVolume('v1');
    await store().attachmentsOfInstance('i-1');
    expect(dynamo.commandCalls(GetCommand)[0]!.args[0].input).toEqual({ TableName: 'records', Key: { pk: 'VOLUME#v1', sk: 'VOLUME' }, ConsistentRead: true });
    expect(dynamo.commandCalls(BatchGetCommand)[0]!.args[0].input.RequestItems!.records).toMatchObject({ ConsistentRead: true });
    const [byVolume, byInstance] = dynamo.commandCalls(QueryCommand).map((call) => call.args[0].input);
    expect(byVolume).toMatchObject({ ConsistentRead: true });
    expect(byVolume!.IndexName).toBeUndefined();
    // DynamoDB refuses a strongly consistent read of a global secondary index.
    expect(byInstance).toMatchObject({ IndexName: 'byInstance' });
    expect(byInstance!.ConsistentRead).toBeUndefined();
  });

  it('retries unprocessed keys 8 times in all by default', async () => {
    // No wait between attempts: the jitter picks none of the backoff.
    vi.spyOn(Math, 'random').mockReturnValue(0);
    dynamo.on(BatchGetCommand).callsFake((input) => ({ Responses: { records: [] }, UnprocessedKeys: { records: { Keys: input.RequestItems.records.Keys } } }));
    const error = await new DynamoRecordStore({ client: doc, tableName: 'records' }).getMany([volumeKey(1)]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnprocessedKeysError);
    expect(dynamo.commandCalls(BatchGetCommand)).toHaveLength(8);
  });

  it('chunks at 100 keys and drops duplicate keys', async () => {
    dynamo.on(BatchGetCommand).callsFake((input) => ({ Responses: { records: (input.RequestItems.records.Keys as Record<string, unknown>[]).map(itemFor) } }));
    const keys = Array.from({ length: 250 }, (_, i) => volumeKey(i));
    const records = await store().getMany([...keys, volumeKey(7), volumeKey(249)]);
    expect(records).toHaveLength(250);
    expect(dynamo.commandCalls(BatchGetCommand).map((c) => c.args[0].input.RequestItems!.records!.Keys!.length)).toEqual([100, 100, 50]);
  });

  it("reads a volume's or an instance's attachments to the last page, each query starting at the key the previous one stopped at", async () => {
    const attachmentItem = (volumeId: string, instanceId: string) => ({ pk: `VOLUME#${volumeId}`, sk: `ATTACHMENT#${instanceId}`, gsi1pk: `INSTANCE#${instanceId}`, gsi1sk: `VOLUME#${volumeId}` });
    const firstPage = { pk: 'VOLUME#v1', sk: 'ATTACHMENT#i-1' };
    dynamo
      .on(QueryCommand)
      .resolvesOnce({ Items: [attachmentItem('v1', 'i-1')], LastEvaluatedKey: firstPage })
      .resolvesOnce({ Items: [], LastEvaluatedKey: { ...firstPage, sk: 'ATTACHMENT#i-2' } })
      .resolvesOnce({ Items: [attachmentItem('v1', 'i-3')] });
    expect((await store().attachmentsOfVolume('v1')).map((a) => a.instanceId)).toEqual(['i-1', 'i-3']);
    expect(dynamo.commandCalls(QueryCommand).map((c) => c.args[0].input.ExclusiveStartKey)).toEqual([undefined, firstPage, { ...firstPage, sk: 'ATTACHMENT#i-2' }]);

    dynamo.reset();
    // An index's LastEvaluatedKey holds the index keys and the table keys.
    const indexKey = attachmentItem('v1', 'i-1');
    dynamo
      .on(QueryCommand)
      .resolvesOnce({ Items: [attachmentItem('v1', 'i-1')], LastEvaluatedKey: indexKey })
      .resolvesOnce({ Items: [attachmentItem('v2', 'i-1')] });
    expect((await store().attachmentsOfInstance('i-1')).map((a) => a.volumeId)).toEqual(['v1', 'v2']);
    expect(dynamo.commandCalls(QueryCommand).map((c) => c.args[0].input)).toEqual([
      expect.objectContaining({ IndexName: 'byInstance', ExclusiveStartKey: undefined }),
      expect.objectContaining({ IndexName: 'byInstance', ExclusiveStartKey: indexKey }),
    ]);
  });

  it('builds one conditional UpdateItem: SET, REMOVE for null, version bump, never creating', async () => {
    dynamo.on(UpdateCommand).resolves({ Attributes: { pk: 'VOLUME#v1', sk: 'VOLUME', kind: 'volume', volumeId: 'v1', version: 4 } });
    await store().update<VolumeRecord>(
      { kind: 'volume', volumeId: 'v1' },
      { ebsVolumeId: 'vol-1', observed: null, availabilityZone: undefined },
      { version: 3, claimOwner: 'exec-a', now: 1_000 },
    );
    const input = dynamo.commandCalls(UpdateCommand)[0]!.args[0].input;
    const names = input.ExpressionAttributeNames!;
    const values = input.ExpressionAttributeValues!;
    const resolve = (expression: string) =>
      expression.replace(/#n\d+/g, (n) => names[n]!).replace(/:v\d+/g, (v) => JSON.stringify(values[v]));
    expect(input.Key).toEqual({ pk: 'VOLUME#v1', sk: 'VOLUME' });
    expect(resolve(input.UpdateExpression!)).toBe('SET version = if_not_exists(version, 0) + 1, ebsVolumeId = "vol-1" REMOVE observed');
    expect(resolve(input.ConditionExpression!)).toBe(
      'attribute_exists(pk) AND version = 3 AND claim.owner = "exec-a" AND claim.expiresAt > 1000',
    );
    expect(input.ReturnValuesOnConditionCheckFailure).toBe('ALL_OLD');
  });

  it('conditions a write on every field of its condition; version 0 also matches an item written without one', async () => {
    dynamo.on(DeleteCommand).resolves({});
    await store().remove({ kind: 'volume', volumeId: 'v1' }, { version: 0, life: 'dying', generation: 2, createdAt: T0, claimOwner: 'exec-a', now: 1_000 });
    const input = dynamo.commandCalls(DeleteCommand)[0]!.args[0].input;
    const resolved = input.ConditionExpression!.replace(/#n\d+/g, (n) => input.ExpressionAttributeNames![n]!).replace(/:v\d+/g, (v) => JSON.stringify(input.ExpressionAttributeValues![v]));
    expect(resolved).toBe(
      'attribute_exists(pk) AND (attribute_not_exists(version) OR version = 0) AND life = "dying" AND generation = 2 AND ' +
        `createdAt = "${T0}" AND claim.owner = "exec-a" AND claim.expiresAt > 1000`,
    );
    expect(input).toMatchObject({ TableName: 'records', Key: { pk: 'VOLUME#v1', sk: 'VOLUME' }, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' });
  });

  it('an update or a claim returns the whole record as stored after it (ALL_NEW), and sets an attachment\'s instance index keys; a claim of a missing record says so', async () => {
    const stored = { pk: 'VOLUME#v1', sk: 'ATTACHMENT#i-1', kind: 'attachment', volumeId: 'v1', instanceId: 'i-1', version: 4, claim: { owner: 'exec-a', expiresAt: 1_500 } };
    dynamo.on(UpdateCommand).resolves({ Attributes: stored });
    const key = { kind: 'attachment' as const, volumeId: 'v1', instanceId: 'i-1' };
    const updated = await store().update<AttachmentRecord>(key, { device: '/dev/sdf' });
    const claimed = await store().claim(key, 'exec-a', 1_000, 500);
    const record = { kind: 'attachment', volumeId: 'v1', instanceId: 'i-1', version: 4, claim: { owner: 'exec-a', expiresAt: 1_500 } };
    expect(updated).toEqual(record);
    expect(claimed).toEqual({ ok: true, record });
    for (const call of dynamo.commandCalls(UpdateCommand)) {
      const input = call.args[0].input;
      expect(input.ReturnValues).toBe('ALL_NEW');
      const update = input.UpdateExpression!.replace(/#n\d+/g, (n) => input.ExpressionAttributeNames![n]!).replace(/:v\d+/g, (v) => JSON.stringify(input.ExpressionAttributeValues![v]));
      expect(update).toContain('gsi1pk = "INSTANCE#i-1", gsi1sk = "VOLUME#v1"');
    }

    dynamo.reset();
    dynamo.on(UpdateCommand).rejects(new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} }));
    expect(await store().claim(key, 'exec-a', 1_000, 500)).toEqual({ ok: false, reason: 'missing' });
  });

  it('a kind-filtered page makes at most 10 Scan requests, then returns what it found with a cursor', async () => {
    let n = 0;
    dynamo.on(ScanCommand).callsFake(() => ({ Items: [], LastEvaluatedKey: { pk: `VOLUME#v${++n}`, sk: 'VOLUME' } }));
    const page = await store().list({ limit: 5, kind: 'attachment' });
    expect(dynamo.commandCalls(ScanCommand)).toHaveLength(10);
    expect(page.items).toEqual([]);
    expect(JSON.parse(Buffer.from(page.cursor!, 'base64url').toString('utf8'))).toEqual({ pk: 'VOLUME#v10', sk: 'VOLUME' });
  });

  it('writes a map holding a key named `constructor` (a tag EC2 allows) as a map', () => {
    const item = toItem({ ...newVolume('v1'), spec: { sizeGiB: 1, volumeType: 'gp3', availabilityZone: 'us-east-1a', tags: { constructor: 'x' } } } as VolumeRecord);
    expect(marshall(item, ITEM_MARSHALL_OPTIONS).spec!.M!.tags).toEqual({ M: { constructor: { S: 'x' } } });
  });

  it('creates a record at version 1, whatever version it was given', async () => {
    dynamo.on(PutCommand).resolves({});
    await store().create({ kind: 'volume', volumeId: 'v1', version: 5 } as VolumeRecord);
    expect(dynamo.commandCalls(PutCommand)[0]!.args[0].input.Item).toEqual({ pk: 'VOLUME#v1', sk: 'VOLUME', kind: 'volume', volumeId: 'v1', version: 1 });
  });

  it('gives the last page no cursor, even when it fills the page; a kind filter reads at least 100 items a request, DynamoDB applying Limit before the filter', async () => {
    const volumeItem = (volumeId: string) => ({ pk: `VOLUME#${volumeId}`, sk: 'VOLUME', kind: 'volume', volumeId });
    dynamo.on(ScanCommand).resolves({ Items: [volumeItem('v1'), volumeItem('v2')] });
    expect(await store().list({ limit: 2 })).toEqual({ items: [{ kind: 'volume', volumeId: 'v1' }, { kind: 'volume', volumeId: 'v2' }] });
    expect(await store().list({ limit: 2, kind: 'volume' })).toEqual({ items: [{ kind: 'volume', volumeId: 'v1' }, { kind: 'volume', volumeId: 'v2' }] });
    expect(dynamo.commandCalls(ScanCommand).map((call) => call.args[0].input.Limit)).toEqual([2, 100]);
  });

  it('creates only where no item is; claims only a free, lapsed or own claim; lets go only of its own', async () => {
    dynamo.on(PutCommand).resolves({});
    dynamo.on(UpdateCommand).resolves({ Attributes: { pk: 'VOLUME#v1', sk: 'VOLUME', kind: 'volume', volumeId: 'v1', version: 2 } });
    const key = { kind: 'volume' as const, volumeId: 'v1' };
    await store().create({ kind: 'volume', volumeId: 'v1' } as VolumeRecord);
    await store().claim(key, 'exec-a', 1_000, 500);
    await store().release(key, 'exec-a');
    const resolved = (input: { ConditionExpression?: string; UpdateExpression?: string; ExpressionAttributeNames?: Record<string, string>; ExpressionAttributeValues?: Record<string, unknown> }) => {
      const text = `${input.UpdateExpression ?? ''} | ${input.ConditionExpression ?? ''}`;
      return text.replace(/#n\d+/g, (n) => input.ExpressionAttributeNames![n]!).replace(/:v\d+/g, (v) => JSON.stringify(input.ExpressionAttributeValues![v]));
    };
    const put = dynamo.commandCalls(PutCommand)[0]!.args[0].input;
    expect(put).toMatchObject({ TableName: 'records', Item: { pk: 'VOLUME#v1', sk: 'VOLUME' }, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' });
    expect(resolved(put)).toBe(' | attribute_not_exists(pk)');
    const [claim, release] = dynamo.commandCalls(UpdateCommand).map((call) => call.args[0].input);
    expect(resolved(claim!)).toBe(
      'SET claim = {"owner":"exec-a","expiresAt":1500}, version = if_not_exists(version, 0) + 1 | ' +
        'attribute_exists(pk) AND (attribute_not_exists(claim) OR claim.expiresAt <= 1000 OR claim.owner = "exec-a")',
    );
    expect(resolved(release!)).toBe('SET version = if_not_exists(version, 0) + 1 REMOVE claim | claim.owner = "exec-a"');
  });

  it('turns a failed condition into ConditionFailedError carrying the current record', async () => {
    const current = { pk: 'VOLUME#v1', sk: 'VOLUME', kind: 'volume', volumeId: 'v1', version: 9, life: 'dying' };
    dynamo.on(UpdateCommand).rejects(
      new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {}, Item: marshall(current) }),
    );
    const error = await store()
      .update<VolumeRecord>({ kind: 'volume', volumeId: 'v1' }, { observedGeneration: 1 }, { version: 8 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConditionFailedError);
    expect((error as ConditionFailedError).current).toEqual({ kind: 'volume', volumeId: 'v1', version: 9, life: 'dying' });
  });

  it('reads the current record of a failed condition whatever numbers a hand-written item holds', async () => {
    dynamo.on(PutCommand).rejects(
      new ConditionalCheckFailedException({
        message: 'The conditional request failed',
        $metadata: {},
        Item: { pk: { S: 'VOLUME#v1' }, sk: { S: 'VOLUME' }, version: { N: '12345678901234567890.5' }, spec: { M: { sizeGiB: { N: '1e+40' } } } },
      }),
    );
    const error = await store()
      .create({ kind: 'volume', volumeId: 'v1' } as VolumeRecord)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConditionFailedError);
    expect((error as ConditionFailedError).current).toEqual({ kind: 'volume', volumeId: 'v1', version: Number('12345678901234567890.5'), spec: { sizeGiB: 1e40 } });
  });

  it("turns DynamoDB's refusal of an item over 400 KB into ItemTooLargeError, and leaves other validation errors as they are", async () => {
    const validation = (message: string) => new DynamoDBServiceException({ name: 'ValidationException', $fault: 'client', $metadata: {}, message });
    dynamo.on(PutCommand).rejects(validation('Item size has exceeded the maximum allowed size'));
    dynamo.on(UpdateCommand).rejects(validation('Item size to update has exceeded the maximum allowed size'));
    const created = await store().create({ kind: 'volume', volumeId: 'v1' } as VolumeRecord).catch((e: unknown) => e);
    expect(created).toBeInstanceOf(ItemTooLargeError);
    expect((created as Error).message).toBe('volume/v1: Item size has exceeded the maximum allowed size');
    await expect(store().update<VolumeRecord>({ kind: 'volume', volumeId: 'v1' }, { observedGeneration: 1 })).rejects.toBeInstanceOf(ItemTooLargeError);
    await expect(store().claim({ kind: 'volume', volumeId: 'v1' }, 'owner-1', 0, 1000)).rejects.toBeInstanceOf(ItemTooLargeError);

    const other = validation('One or more parameter values were invalid: An AttributeValue may not contain an empty string');
    dynamo.on(UpdateCommand).rejects(other);
    await expect(store().update<VolumeRecord>({ kind: 'volume', volumeId: 'v1' }, { observedGeneration: 1 })).rejects.toBe(other);
  });

  it("numbers afresh from 1 an item whose version DynamoDB refuses to add to, in either wording of the refusal, in an update, a claim or a release", async () => {
    const validation = (message: string) => new DynamoDBServiceException({ name: 'ValidationException', $fault: 'client', $metadata: {}, message });
    for (const message of [
      'Invalid UpdateExpression: An operand in the update expression has an incorrect data type',
      'Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: +, operand type: S',
    ]) {
      dynamo.reset();
      dynamo.on(UpdateCommand).rejectsOnce(validation(message)).resolves({ Attributes: { pk: 'VOLUME#v1', sk: 'VOLUME', kind: 'volume', volumeId: 'v1', version: 1, life: 'dying' } });
      expect(await store().update<VolumeRecord>({ kind: 'volume', volumeId: 'v1' }, { life: 'dying' })).toMatchObject({ version: 1, life: 'dying' });
      const [first, second] = dynamo.commandCalls(UpdateCommand).map((call) => call.args[0].input);
      expect(first!.UpdateExpression).toMatch(/ \+ /);
      expect(second!.UpdateExpression).not.toMatch(/ \+ /);
      expect(second!.ConditionExpression).toMatch(/NOT attribute_type\(/);
    }
    // A claim and a release alike.
    const key = { kind: 'volume' as const, volumeId: 'v1' };
    for (const write of [() => store().claim(key, 'exec-a', 1_000, 500), () => store().release(key, 'exec-a')]) {
      dynamo.reset();
      dynamo.on(UpdateCommand).rejectsOnce(validation('Invalid UpdateExpression: An operand in the update expression has an incorrect data type')).resolves({ Attributes: { pk: 'VOLUME#v1', sk: 'VOLUME', version: 1 } });
      await write();
      const [first, second] = dynamo.commandCalls(UpdateCommand).map((call) => call.args[0].input);
      expect(first!.UpdateExpression).toMatch(/ \+ /);
      expect(second!.UpdateExpression).not.toMatch(/ \+ /);
      expect(second!.ConditionExpression).toMatch(/ AND NOT attribute_type\(/);
    }
  });

  it('refuses a cursor whose keys DynamoDB would refuse as a cursor no page returned, without scanning; takes any key DynamoDB takes', async () => {
    dynamo.on(ScanCommand).resolves({ Items: [] });
    const cursorOf = (key: unknown) => Buffer.from(JSON.stringify(key), 'utf8').toString('base64url');
    for (const key of [
      { pk: '', sk: 'VOLUME' },
      { pk: 'VOLUME#v1', sk: '' },
      { pk: `VOLUME#${'v'.repeat(2042)}`, sk: 'VOLUME' },
      { pk: 'VOLUME#v1', sk: `ATTACHMENT#${'€'.repeat(338)}` },
      { pk: 'VOLUME#\ud800', sk: 'VOLUME' },
      { pk: 'VOLUME#v1', sk: 'VOLUME', other: 'x' },
      { pk: 'VOLUME#v1', sk: 1 },
    ]) {
      await expect(store().list({ limit: 5, cursor: cursorOf(key) }), JSON.stringify(key)).rejects.toBeInstanceOf(InvalidCursorError);
    }
    expect(dynamo.commandCalls(ScanCommand)).toHaveLength(0);
    // At DynamoDB's limits (2048 and 1024 bytes), and a key of another shape an item written by hand may have.
    for (const key of [{ pk: `VOLUME#${'v'.repeat(2041)}`, sk: `ATTACHMENT#${'€'.repeat(337)}ab` }, { pk: 'other', sk: 'x' }]) {
      await store().list({ limit: 5, cursor: cursorOf(key) });
    }
    expect(dynamo.commandCalls(ScanCommand).map((c) => c.args[0].input.ExclusiveStartKey?.pk)).toEqual([`VOLUME#${'v'.repeat(2041)}`, 'other']);
  });

  it('scans one segment of a parallel scan with Segment and TotalSegments on every request, its cursor included; refuses a segment DynamoDB would', async () => {
    dynamo
      .on(ScanCommand)
      .resolvesOnce({ Items: [{ pk: 'VOLUME#v1', sk: 'VOLUME', kind: 'volume', volumeId: 'v1' }], LastEvaluatedKey: { pk: 'VOLUME#v1', sk: 'VOLUME' } })
      .resolves({ Items: [] });
    const page = await store().list({ limit: 1, segment: { index: 3, total: 8 } });
    // With a kind filter a page may take several requests: each names the segment.
    await store().list({ limit: 5, kind: 'attachment', segment: { index: 3, total: 8 }, cursor: page.cursor! });
    expect(dynamo.commandCalls(ScanCommand).map((c) => c.args[0].input)).toEqual([
      expect.objectContaining({ TableName: 'records', Segment: 3, TotalSegments: 8, Limit: 1, ExclusiveStartKey: undefined }),
      expect.objectContaining({ Segment: 3, TotalSegments: 8, FilterExpression: 'begins_with(#n0, :v0)', ExclusiveStartKey: { pk: 'VOLUME#v1', sk: 'VOLUME' } }),
    ]);
    await store().list({ limit: 5 });
    expect(dynamo.commandCalls(ScanCommand)[2]!.args[0].input).not.toHaveProperty('Segment');
    expect(dynamo.commandCalls(ScanCommand)[2]!.args[0].input).not.toHaveProperty('TotalSegments');
    await expect(store().list({ limit: 5, segment: { index: 8, total: 8 } })).rejects.toBeInstanceOf(RangeError);
    await expect(store().list({ limit: 5, segment: { index: 0, total: 1_000_001 } })).rejects.toBeInstanceOf(RangeError);
    expect(dynamo.commandCalls(ScanCommand)).toHaveLength(3);
  });

  it('lists only items whose keys name a record: one written by hand under a key of another shape is none, whatever fields it holds', async () => {
    const record = (volumeId: string) => ({ pk: `VOLUME#${volumeId}`, sk: 'VOLUME', kind: 'volume', volumeId });
    dynamo
      .on(ScanCommand)
      // A pk without its `VOLUME#`: the watcher skips it, and a read of volume d2 finds nothing.
      .resolvesOnce({ Items: [record('d1'), { pk: 'd2', sk: 'VOLUME', kind: 'volume', volumeId: 'd2' }], LastEvaluatedKey: { pk: 'd2', sk: 'VOLUME' } })
      .resolvesOnce({ Items: [record('d3')], LastEvaluatedKey: { pk: 'VOLUME#d3', sk: 'VOLUME' } })
      .resolvesOnce({ Items: [] });
    const page = await store().list({ limit: 2 });
    expect(page.items.map((r) => (r as VolumeRecord).volumeId)).toEqual(['d1', 'd3']);
    expect(dynamo.commandCalls(ScanCommand).map((c) => c.args[0].input.Limit)).toEqual([2, 1]);
    // The item left out is scanned past, and the next page starts after the last item listed.
    expect(dynamo.commandCalls(ScanCommand)[1]!.args[0].input.ExclusiveStartKey).toEqual({ pk: 'd2', sk: 'VOLUME' });
    expect(await store().list({ limit: 2, cursor: page.cursor! })).toEqual({ items: [] });
    expect(dynamo.commandCalls(ScanCommand)[2]!.args[0].input.ExclusiveStartKey).toEqual({ pk: 'VOLUME#d3', sk: 'VOLUME' });
  });

  it("reads through the instance index only items whose keys name a record, as a list does", async () => {
    dynamo.on(QueryCommand).resolves({
      Items: [
        { pk: 'VOLUME#v1', sk: 'ATTACHMENT#i-1', gsi1pk: 'INSTANCE#i-1', gsi1sk: 'VOLUME#v1' },
        // Index keys written by hand on an item whose own keys name nothing: no attachment of v9 to i-1 exists.
        { pk: 'v9', sk: 'ATTACHMENT#i-1', gsi1pk: 'INSTANCE#i-1', gsi1sk: 'VOLUME#v9', kind: 'attachment', volumeId: 'v9', instanceId: 'i-1' },
      ],
    });
    expect((await store().attachmentsOfInstance('i-1')).map((a) => a.volumeId)).toEqual(['v1']);
  });

  it('reads through the instance index only attachments of that instance by their own keys: index keys written by hand on a volume item or on an attachment of another instance name none', async () => {
    dynamo.on(QueryCommand).resolves({
      Items: [
        { pk: 'VOLUME#v1', sk: 'ATTACHMENT#i-1', gsi1pk: 'INSTANCE#i-1', gsi1sk: 'VOLUME#v1', instanceSeen: { availabilityZone: 'us-east-1a' } },
        // Copied by hand from an attachment of i-1: a volume item, and an attachment to i-2 (its index keys not yet set by the system).
        { pk: 'VOLUME#v2', sk: 'VOLUME', gsi1pk: 'INSTANCE#i-1', gsi1sk: 'VOLUME#v2' },
        { pk: 'VOLUME#v3', sk: 'ATTACHMENT#i-2', gsi1pk: 'INSTANCE#i-1', gsi1sk: 'VOLUME#v3', instanceSeen: { availabilityZone: 'us-east-1b' } },
      ],
    });
    expect(await store().attachmentsOfInstance('i-1')).toEqual([
      { kind: 'attachment', volumeId: 'v1', instanceId: 'i-1', instanceSeen: { availabilityZone: 'us-east-1a' } },
    ]);
  });

  it('refuses to change identity or version through update', async () => {
    await expect(store().update({ kind: 'volume', volumeId: 'v1' }, { pk: 'x' } as never)).rejects.toThrow(/pk cannot be changed/);
    expect(dynamo.commandCalls(UpdateCommand)).toHaveLength(0);
  });
});

describe('record items', () => {
  it('round-trips records and adds the instance index keys to attachments', () => {
    const attachment: AttachmentRecord = {
      kind: 'attachment',
      volumeId: 'v1',
      instanceId: 'i-1',
      life: 'alive',
      status: { state: 'pending', attempts: 0, updatedAt: T0 },
      version: 1,
      createdAt: T0,
    };
    const item = toItem(attachment);
    expect(item).toMatchObject({ pk: 'VOLUME#v1', sk: 'ATTACHMENT#i-1', gsi1pk: 'INSTANCE#i-1', gsi1sk: 'VOLUME#v1' });
    expect(fromItem(item)).toEqual(attachment);
    const volumeItem = toItem({ ...attachment, kind: 'volume' } as unknown as VolumeRecord);
    expect(volumeItem).not.toHaveProperty('gsi1pk');
  });

  it('takes identity from the keys of an item written by hand', () => {
    expect(fromItem({ pk: 'VOLUME#v9', sk: 'ATTACHMENT#i-9', kind: 'volume', volumeId: 'other' })).toEqual({
      kind: 'attachment',
      volumeId: 'v9',
      instanceId: 'i-9',
    });
    expect(fromItem({ pk: 'SOMETHING', sk: 'ELSE', spec: 1 })).toEqual({ spec: 1 });
  });

  it('a map key `__proto__` written by hand, which the SDK reads as its map\'s prototype, makes the record invalid, naming it, rather than a field validation reads and change detection does not see', () => {
    const volume = newVolume('v1');
    const image = marshall({ ...toItem(volume) }, { removeUndefinedValues: true }) as Record<string, AttributeValue>;
    // The spec's iops hidden under `__proto__`, and the record's life under a top-level one, as own keys (as the wire's JSON holds them).
    const ownKey = (map: object, value: AttributeValue) => Object.defineProperty(map, '__proto__', { value, enumerable: true, writable: true, configurable: true });
    ownKey((image.spec as { M: Record<string, AttributeValue> }).M, { M: { iops: { N: '16000' } } });
    ownKey(image, { M: { life: { S: 'dying' } } });
    const read = fromStreamImage(image) as VolumeRecord;
    // The top-level one is gone (the record is built of the item's own fields); the spec's is its prototype.
    expect(read.life).toBe('alive');
    expect(Object.getPrototypeOf(read.spec)).not.toBe(Object.prototype);
    const parsed = parseRecord(read);
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.issues).toContainEqual({ path: 'spec.__proto__', message: '"__proto__" cannot be a key' });
  });

  it('reads any DynamoDB number in a stream image as a plain number, so validation can name it', () => {
    // Written by hand: beyond Number.MAX_SAFE_INTEGER, with and without a fraction (DynamoDB keeps 38 digits).
    const image = {
      pk: { S: 'VOLUME#v1' },
      sk: { S: 'VOLUME' },
      version: { N: '12345678901234567890.5' },
      spec: { M: { sizeGiB: { N: '100000000000000000000' }, iops: { N: '-9007199254740998.25' } } },
    };
    const record = fromStreamImage(image) as VolumeRecord;
    expect(record).toEqual({ kind: 'volume', volumeId: 'v1', version: Number('12345678901234567890.5'), spec: { sizeGiB: 1e20, iops: Number('-9007199254740998.25') } });
    expect(typeof record.spec.sizeGiB).toBe('number');
    expect(keyFromStreamKeys({ pk: image.pk, sk: image.sk })).toEqual({ kind: 'volume', volumeId: 'v1' });
  });
});
