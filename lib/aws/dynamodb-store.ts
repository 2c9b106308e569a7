/**
 * RecordStore on DynamoDB (one table, single-table design). Every write is one conditional
 * request, so concurrent writers (executor invocations, the watcher, the API) can never lose each
 * other's updates or resurrect a deleted record.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
  type QueryCommandInput,
} from '@aws-sdk/lib-dynamodb';
import {
  keyString,
  type AttachmentRecord,
  type ProvisionerRecord,
  type RecordKey,
} from '../domain/records.js';
import {
  checkPageLimit,
  checkRecordChanges,
  checkScanSegment,
  ConditionFailedError,
  InvalidCursorError,
  ItemTooLargeError,
  type ClaimResult,
  type ListOptions,
  type Page,
  type RecordChanges,
  type RecordStore,
  type WriteCondition,
} from '../engine/ports.js';
import { TABLE } from '../settings.js';
import {
  ATTACHMENT_SORT_PREFIX,
  fromItem,
  instanceIndexKey,
  instanceIndexPartition,
  itemFromAttributeValues,
  itemKey,
  keyFromItem,
  toItem,
  type TableItem,
} from './record-item.js';

/** BatchGetItem's maximum keys per request. */
const BATCH_GET_MAX_KEYS = 100;
/** Most Scan requests one `list` call makes before returning a short page (keeps API calls bounded). */
const MAX_SCANS_PER_PAGE = 10;

export interface UnprocessedRetryOptions {
  /** BatchGetItem requests per chunk, the first included. Default 8. */
  maxAttempts?: number;
  /** First backoff; doubled per retry, with full jitter. Default 50 ms. */
  baseDelayMs?: number;
  /** Injected for tests. */
  sleep?: (ms: number) => Promise<void>;
}

/** Thrown when BatchGetItem keeps returning unprocessed keys past the retry budget. */
export class UnprocessedKeysError extends Error {
  override readonly name = 'UnprocessedKeysError';
  constructor(readonly unprocessed: number) {
    super(`BatchGetItem left ${unprocessed} keys unprocessed after all retries (table throttled?)`);
  }
}

/** Builds expression attribute names/values with generated placeholders. */
class Expression {
  readonly names: Record<string, string> = {};
  readonly values: Record<string, unknown> = {};
  private counter = 0;
  private readonly nameOf = new Map<string, string>();

  /** Placeholder for a (possibly nested, dot-separated) attribute path. */
  name(path: string): string {
    return path
      .split('.')
      .map((part) => {
        let placeholder = this.nameOf.get(part);
        if (placeholder === undefined) {
          placeholder = `#n${this.nameOf.size}`;
          this.nameOf.set(part, placeholder);
          this.names[placeholder] = part;
        }
        return placeholder;
      })
      .join('.');
  }

  value(value: unknown): string {
    const placeholder = `:v${this.counter++}`;
    this.values[placeholder] = value;
    return placeholder;
  }

  /** The names/values request fields, leaving out empty maps (DynamoDB rejects them). */
  attributes(): { ExpressionAttributeNames?: Record<string, string>; ExpressionAttributeValues?: Record<string, unknown> } {
    return {
      ...(Object.keys(this.names).length > 0 ? { ExpressionAttributeNames: this.names } : {}),
      ...(Object.keys(this.values).length > 0 ? { ExpressionAttributeValues: this.values } : {}),
    };
  }
}

/** `attribute_exists(pk)` plus every field of `condition`. */
function conditionExpression(expr: Expression, condition: WriteCondition | undefined): string {
  const clauses = [`attribute_exists(${expr.name(TABLE.partitionKey)})`];
  if (condition?.version !== undefined) {
    // Version 0 is how an item a client wrote without one reads (the record parser's default).
    const equal = `${expr.name('version')} = ${expr.value(condition.version)}`;
    clauses.push(condition.version === 0 ? `(attribute_not_exists(${expr.name('version')}) OR ${equal})` : equal);
  }
  if (condition?.life !== undefined) clauses.push(`${expr.name('life')} = ${expr.value(condition.life)}`);
  if (condition?.generation !== undefined) {
    clauses.push(`${expr.name('generation')} = ${expr.value(condition.generation)}`);
  }
  if (condition?.createdAt !== undefined) clauses.push(`${expr.name('createdAt')} = ${expr.value(condition.createdAt)}`);
  if (condition?.claimOwner !== undefined) {
    clauses.push(`${expr.name('claim.owner')} = ${expr.value(condition.claimOwner)}`);
    // A claim is live while now < expiresAt.
    if (condition.now !== undefined) clauses.push(`${expr.name('claim.expiresAt')} > ${expr.value(condition.now)}`);
  }
  return clauses.join(' AND ');
}

/** `SET version = version + 1` (tolerating items written without one). */
function bumpVersion(expr: Expression): string {
  const version = expr.name('version');
  return `${version} = if_not_exists(${version}, ${expr.value(0)}) + ${expr.value(1)}`;
}

function encodeCursor(key: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(key), 'utf8').toString('base64url');
}

/** DynamoDB's limits on a string key value, in UTF-8 bytes: 1–2048 for a partition key, 1–1024 for a sort key. */
const KEY_MAX_BYTES = { [TABLE.partitionKey]: 2048, [TABLE.sortKey]: 1024 } as const;

/**
 * Whether `value` could be a key value in the table: a non-empty string within DynamoDB's limit
 * that is valid Unicode (a lone surrogate would not survive UTF-8). Shapes beyond these are not
 * checked: an item written into the table by hand may have any key and end a page.
 */
function isKeyValue(value: unknown, maxBytes: number): value is string {
  if (typeof value !== 'string' || value === '') return false;
  const bytes = Buffer.from(value, 'utf8');
  return bytes.length <= maxBytes && bytes.toString('utf8') === value;
}

/**
 * The start key of a cursor. One DynamoDB would refuse (an empty or oversized key) is refused here
 * as a cursor no page returned, not left to fail the Scan as a ValidationException.
 */
function decodeCursor(cursor: string): Record<string, string> {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new InvalidCursorError('cursor is not one returned by a previous page');
  }
  const ok =
    typeof decoded === 'object' &&
    decoded !== null &&
    Object.keys(decoded).length === 2 &&
    Object.entries(KEY_MAX_BYTES).every(([name, maxBytes]) => isKeyValue((decoded as Record<string, unknown>)[name], maxBytes));
  if (!ok) throw new InvalidCursorError('cursor is not one returned by a previous page');
  return decoded as Record<string, string>;
}

/**
 * The items of a page that are records. One written by hand under keys of another shape is none,
 * whatever fields it holds (the watcher skips it, and a read by its fields' key finds nothing):
 * read by a scan or through the instance index, it would show as the record its fields name.
 */
function recordItems(items: TableItem[] | undefined): TableItem[] {
  return (items ?? []).filter((item) => keyFromItem(item) !== undefined);
}

function recordOf(item: TableItem): ProvisionerRecord {
  // Not validated here: see fromItem. Callers that act on records validate them.
  return fromItem(item) as ProvisionerRecord;
}

/**
 * DynamoDB's refusal of a write that would make an item larger than 400 KB: a ValidationException
 * saying "Item size has exceeded the maximum allowed size" (PutItem) or "Item size to update has
 * exceeded the maximum allowed size" (UpdateItem).
 */
const ITEM_TOO_LARGE = /^Item size (?:to update )?has exceeded the maximum allowed size/;

/** `error` as ItemTooLargeError when DynamoDB refused the write for the item's size, else as it is. */
function itemSizeError(key: RecordKey, error: unknown): unknown {
  if (error instanceof Error && error.name === 'ValidationException' && ITEM_TOO_LARGE.test(error.message)) {
    return new ItemTooLargeError(`${keyString(key)}: ${error.message}`);
  }
  return error;
}

/**
 * DynamoDB's refusals of `version + 1` on an attribute that is no number. Real DynamoDB says "An
 * operand in the update expression has an incorrect data type"; the emulator may also name the
 * operator ("Incorrect operand type for operator or function; operator or function: +").
 */
const NOT_A_NUMBER_OPERAND = /An operand in the update expression has an incorrect data type|Incorrect operand type for operator or function; operator or function: \+/;
/** The stored item a failed conditional write saw (ReturnValuesOnConditionCheckFailure ALL_OLD). */
function currentOf(error: ConditionalCheckFailedException): ProvisionerRecord | undefined {
  return error.Item === undefined ? undefined : recordOf(itemFromAttributeValues(error.Item));
}

export class DynamoRecordStore implements RecordStore {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;
  private readonly retry: Required<UnprocessedRetryOptions>;

  constructor(options: { client: DynamoDBDocumentClient; tableName: string; unprocessedRetry?: UnprocessedRetryOptions }) {
    this.client = options.client;
    this.tableName = options.tableName;
    this.retry = {
      maxAttempts: options.unprocessedRetry?.maxAttempts ?? 8,
      baseDelayMs: options.unprocessedRetry?.baseDelayMs ?? 50,
      sleep: options.unprocessedRetry?.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
    };
  }

  async get(key: RecordKey): Promise<ProvisionerRecord | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: itemKey(key), ConsistentRead: true }),
    );
    return Item === undefined ? undefined : recordOf(Item);
  }

  async getMany(keys: RecordKey[]): Promise<ProvisionerRecord[]> {
    // BatchGetItem rejects a request that names the same key twice.
    const unique = [...new Map(keys.map((key) => [keyString(key), itemKey(key)])).values()];
    const records: ProvisionerRecord[] = [];
    for (let start = 0; start < unique.length; start += BATCH_GET_MAX_KEYS) {
      for (const item of await this.batchGet(unique.slice(start, start + BATCH_GET_MAX_KEYS))) {
        records.push(recordOf(item));
      }
    }
    return records;
  }

  /** One chunk, retrying unprocessed keys with exponential backoff and full jitter. */
  private async batchGet(keys: Record<string, string>[]): Promise<TableItem[]> {
    const items: TableItem[] = [];
    let pending: Record<string, unknown>[] = keys;
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 0) {
        if (attempt >= this.retry.maxAttempts) throw new UnprocessedKeysError(pending.length);
        await this.retry.sleep(Math.random() * this.retry.baseDelayMs * 2 ** (attempt - 1));
      }
      const response = await this.client.send(
        new BatchGetCommand({ RequestItems: { [this.tableName]: { Keys: pending, ConsistentRead: true } } }),
      );
      items.push(...((response.Responses?.[this.tableName] ?? []) as TableItem[]));
      pending = (response.UnprocessedKeys?.[this.tableName]?.Keys ?? []) as Record<string, unknown>[];
    }
    return items;
  }

  async attachmentsOfVolume(volumeId: string): Promise<AttachmentRecord[]> {
    const expr = new Expression();
    const { pk } = itemKey({ kind: 'volume', volumeId }) as { pk: string };
    return this.queryAll({
      TableName: this.tableName,
      KeyConditionExpression: `${expr.name(TABLE.partitionKey)} = ${expr.value(pk)} AND begins_with(${expr.name(TABLE.sortKey)}, ${expr.value(ATTACHMENT_SORT_PREFIX)})`,
      ConsistentRead: true,
      ...expr.attributes(),
    }) as Promise<AttachmentRecord[]>;
  }

  /**
   * Through the instance index: eventually consistent (GSIs offer no consistent reads). Only the
   * instance's attachments by their own keys: index keys written by hand on a volume item, or on
   * an attachment of another instance (until the system's first write to it sets them), name none.
   */
  async attachmentsOfInstance(instanceId: string): Promise<AttachmentRecord[]> {
    const expr = new Expression();
    const records = await this.queryAll({
      TableName: this.tableName,
      IndexName: TABLE.instanceIndex.name,
      KeyConditionExpression: `${expr.name(TABLE.instanceIndex.partitionKey)} = ${expr.value(instanceIndexPartition(instanceId))}`,
      ...expr.attributes(),
    });
    return records.filter((record): record is AttachmentRecord => record.kind === 'attachment' && record.instanceId === instanceId);
  }

  private async queryAll(input: QueryCommandInput): Promise<ProvisionerRecord[]> {
    const records: ProvisionerRecord[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.client.send(new QueryCommand({ ...input, ExclusiveStartKey: start }));
      for (const item of recordItems(page.Items)) records.push(recordOf(item));
      start = page.LastEvaluatedKey;
    } while (start !== undefined);
    return records;
  }

  /**
   * Scans in table order. With a `kind` filter DynamoDB applies `Limit` before the filter, so this
   * scans further (at most MAX_SCANS_PER_PAGE requests) and may return a short page with a cursor.
   * A segment is one of a parallel scan's (Segment, TotalSegments). Items whose keys name no record
   * are left out.
   */
  async list(options: ListOptions): Promise<Page<ProvisionerRecord>> {
    checkPageLimit(options.limit);
    if (options.segment) checkScanSegment(options.segment);
    const segment = options.segment ? { Segment: options.segment.index, TotalSegments: options.segment.total } : {};
    const expr = new Expression();
    const filter =
      options.kind === undefined
        ? undefined
        : options.kind === 'volume'
          ? `${expr.name(TABLE.sortKey)} = ${expr.value('VOLUME')}`
          : `begins_with(${expr.name(TABLE.sortKey)}, ${expr.value(ATTACHMENT_SORT_PREFIX)})`;
    const items: TableItem[] = [];
    let start: Record<string, unknown> | undefined =
      options.cursor === undefined ? undefined : decodeCursor(options.cursor);
    for (let scans = 0; scans < MAX_SCANS_PER_PAGE && items.length < options.limit; scans++) {
      const remaining = options.limit - items.length;
      const page = await this.client.send(
        new ScanCommand({
          TableName: this.tableName,
          Limit: filter === undefined ? remaining : Math.max(remaining, BATCH_GET_MAX_KEYS),
          ExclusiveStartKey: start,
          ...segment,
          ...(filter === undefined ? {} : { FilterExpression: filter, ...expr.attributes() }),
        }),
      );
      const found = recordItems(page.Items);
      if (found.length > remaining) {
        // Read past the page: resume right after the last item returned.
        const kept = found.slice(0, remaining);
        items.push(...kept);
        const last = kept[kept.length - 1]!;
        start = { [TABLE.partitionKey]: last[TABLE.partitionKey], [TABLE.sortKey]: last[TABLE.sortKey] };
        break;
      }
      items.push(...found);
      start = page.LastEvaluatedKey;
      if (start === undefined) break;
    }
    return {
      items: items.map(recordOf),
      ...(start === undefined ? {} : { cursor: encodeCursor(start) }),
    };
  }

  async create(record: ProvisionerRecord): Promise<void> {
    const expr = new Expression();
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          // A new record starts at version 1, whatever version it was given (as in the in-memory table).
          Item: toItem({ ...record, version: 1 }),
          ConditionExpression: `attribute_not_exists(${expr.name(TABLE.partitionKey)})`,
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          ...expr.attributes(),
        }),
      );
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) {
        throw new ConditionFailedError(`${keyString(record)} already exists`, currentOf(error));
      }
      throw itemSizeError(record, error);
    }
  }

  async update<R extends ProvisionerRecord>(key: RecordKey, changes: RecordChanges<R>, condition?: WriteCondition): Promise<R> {
    checkRecordChanges(changes);
    const item = await this.versionedUpdate(key, (expr, setVersion) => {
      const sets = [setVersion];
      const removes: string[] = [];
      for (const [field, value] of Object.entries(changes)) {
        if (value === undefined) continue;
        if (value === null) removes.push(expr.name(field));
        else sets.push(`${expr.name(field)} = ${expr.value(value)}`);
      }
      sets.push(...indexKeySets(expr, key));
      return { update: `SET ${sets.join(', ')}${removes.length > 0 ? ` REMOVE ${removes.join(', ')}` : ''}`, condition: conditionExpression(expr, condition) };
    });
    return recordOf(item) as R;
  }

  async remove(key: RecordKey, condition?: WriteCondition): Promise<void> {
    const expr = new Expression();
    try {
      await this.client.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: itemKey(key),
          ConditionExpression: conditionExpression(expr, condition),
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          ...expr.attributes(),
        }),
      );
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) {
        const current = currentOf(error);
        throw new ConditionFailedError(
          current === undefined ? `${keyString(key)} does not exist` : `${keyString(key)}: remove condition failed`,
          current,
        );
      }
      throw error;
    }
  }

  /** One conditional update: succeeds when the claim is absent, expired at `now`, or `owner`'s own. */
  async claim(key: RecordKey, owner: string, now: number, leaseMs: number): Promise<ClaimResult> {
    try {
      const item = await this.versionedUpdate(key, (expr, setVersion) => {
        const claim = expr.name('claim');
        return {
          update: `SET ${[`${claim} = ${expr.value({ owner, expiresAt: now + leaseMs })}`, setVersion, ...indexKeySets(expr, key)].join(', ')}`,
          condition:
            `attribute_exists(${expr.name(TABLE.partitionKey)}) AND (attribute_not_exists(${claim})` +
            ` OR ${expr.name('claim.expiresAt')} <= ${expr.value(now)}` +
            ` OR ${expr.name('claim.owner')} = ${expr.value(owner)})`,
        };
      });
      return { ok: true, record: recordOf(item) };
    } catch (error) {
      if (!(error instanceof ConditionFailedError)) throw error;
      return error.current === undefined ? { ok: false, reason: 'missing' } : { ok: false, reason: 'held', record: error.current };
    }
  }

  async release(key: RecordKey, owner: string): Promise<void> {
    try {
      await this.versionedUpdate(key, (expr, setVersion) => ({
        update: `SET ${setVersion} REMOVE ${expr.name('claim')}`,
        condition: `${expr.name('claim.owner')} = ${expr.value(owner)}`,
      }));
    } catch (error) {
      if (!(error instanceof ConditionFailedError)) throw error;
      // Not held by `owner` (expired and taken over, released already, or record gone): nothing to drop.
    }
  }

  /**
   * One conditional UpdateItem that bumps the version, `request` giving its update around the
   * version's SET clause and its condition. An item written straight into the table with a version
   * that is no number cannot be bumped: it is numbered afresh from 1 (the record parser reads it as
   * invalid), on the condition that its version is still no number.
   */
  private async versionedUpdate(key: RecordKey, request: (expr: Expression, setVersion: string) => { update: string; condition: string }): Promise<TableItem> {
    try {
      const expr = new Expression();
      const { update, condition } = request(expr, bumpVersion(expr));
      return await this.conditionalUpdate(key, update, condition, expr);
    } catch (error) {
      if (!(error instanceof Error && error.name === 'ValidationException' && NOT_A_NUMBER_OPERAND.test(error.message))) throw error;
      const expr = new Expression();
      const { update, condition } = request(expr, `${expr.name('version')} = ${expr.value(1)}`);
      return this.conditionalUpdate(key, update, `${condition} AND NOT attribute_type(${expr.name('version')}, ${expr.value('N')})`, expr);
    }
  }

  private async conditionalUpdate(key: RecordKey, update: string, condition: string, expr: Expression): Promise<TableItem> {
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: itemKey(key),
          UpdateExpression: update,
          ConditionExpression: condition,
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          ...expr.attributes(),
        }),
      );
      if (Attributes === undefined) throw new Error(`UpdateItem on ${keyString(key)} returned no attributes`);
      return Attributes;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) {
        const current = currentOf(error);
        throw new ConditionFailedError(
          current === undefined ? `${keyString(key)} does not exist` : `${keyString(key)}: write condition failed`,
          current,
        );
      }
      throw itemSizeError(key, error);
    }
  }
}

/**
 * SET clauses for an attachment's instance index keys, written with every update: an attachment
 * item written straight into the table may lack them (or name another instance), and the index
 * then lists it from the system's first write on. None for a volume.
 */
function indexKeySets(expr: Expression, key: RecordKey): string[] {
  if (key.kind !== 'attachment') return [];
  return Object.entries(instanceIndexKey(key.instanceId, key.volumeId)).map(([attribute, value]) => `${expr.name(attribute)} = ${expr.value(value)}`);
}
