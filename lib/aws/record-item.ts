/**
 * Records ⇄ DynamoDB items of the single-table design (lib/domain/records.ts, TABLE in
 * lib/settings.ts). Items are the record's own fields plus the table keys: `pk`/`sk` from
 * `tableKey`, and for attachments the instance index keys `gsi1pk = INSTANCE#<id>`,
 * `gsi1sk = VOLUME#<id>`.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall, type marshallOptions, type unmarshallOptions } from '@aws-sdk/util-dynamodb';
import { instanceIndexKeyValues, keyOf, tableKey, type ProvisionerRecord, type RecordKey } from '../domain/records.js';
import { TABLE } from '../settings.js';

export type TableItem = Record<string, unknown>;

/**
 * How every read turns DynamoDB attribute values into JavaScript (document client, stream images,
 * the item of a failed condition). Each number becomes a plain `number`: the SDK's default makes a
 * BigInt of an integer beyond Number.MAX_SAFE_INTEGER and throws on a larger one with a fraction,
 * so one such value written into the table by hand would fail every read that meets it (a scan
 * page, a stream batch) instead of being an invalid field the record's validation names. Every
 * number the system itself writes is well inside the exact range.
 */
export const ITEM_UNMARSHALL_OPTIONS: Readonly<unmarshallOptions> = { wrapNumbers: (value: string) => Number(value) };

/**
 * How every write turns a record into DynamoDB attribute values (document client, the local
 * runtime's stream images). Undefined fields are left out. A map is taken as a map whatever keys it
 * holds: the SDK tells a plain object by its `constructor`, so one holding a key of that name (a tag
 * EC2 allows, `constructor`) would otherwise be refused as a class instance and fail the write. The
 * records are plain JSON (their validation admits nothing else), so no class instance reaches here.
 */
export const ITEM_MARSHALL_OPTIONS: Readonly<marshallOptions> = { removeUndefinedValues: true, convertClassInstanceToMap: true };

/** An item in attribute-value form (stream image, ALL_OLD of a failed condition) as the store reads items. */
export function itemFromAttributeValues(attributes: Record<string, unknown>): TableItem {
  return unmarshall(attributes as Record<string, AttributeValue>, ITEM_UNMARSHALL_OPTIONS);
}

/** Attributes that exist only in the table, never in a record. */
export const KEY_ATTRIBUTES = [
  TABLE.partitionKey,
  TABLE.sortKey,
  TABLE.instanceIndex.partitionKey,
  TABLE.instanceIndex.sortKey,
] as const;

const VOLUME_PREFIX = 'VOLUME#';
const VOLUME_SORT_KEY = 'VOLUME';
export const ATTACHMENT_SORT_PREFIX = 'ATTACHMENT#';

/** Primary key attributes of a record. */
export function itemKey(key: RecordKey): Record<string, string> {
  const { pk, sk } = tableKey(key);
  return { [TABLE.partitionKey]: pk, [TABLE.sortKey]: sk };
}

/** Instance index key values of an attachment. */
export function instanceIndexKey(instanceId: string, volumeId: string): Record<string, string> {
  const { partition, sort } = instanceIndexKeyValues(instanceId, volumeId);
  return { [TABLE.instanceIndex.partitionKey]: partition, [TABLE.instanceIndex.sortKey]: sort };
}

export function instanceIndexPartition(instanceId: string): string {
  return instanceIndexKeyValues(instanceId, '').partition;
}

/** The item that stores `record`. */
export function toItem(record: ProvisionerRecord): TableItem {
  return {
    ...record,
    ...itemKey(keyOf(record)),
    ...(record.kind === 'attachment' ? instanceIndexKey(record.instanceId, record.volumeId) : {}),
  };
}

/**
 * The record stored in an item. Identity (`kind`, `volumeId`, `instanceId`) comes from the table
 * keys, which are authoritative, so an item written straight into the table with only keys and a
 * spec still names its record. Not validated otherwise: the domain's record parser decides
 * whether the rest is valid.
 */
export function fromItem(item: TableItem): unknown {
  const record: TableItem = { ...item };
  for (const attribute of KEY_ATTRIBUTES) delete record[attribute];
  const identity = keyFromItem(item);
  return identity === undefined ? record : { ...record, ...identity };
}

/** The record key named by an item's `pk`/`sk`, or undefined when they follow no known pattern. */
export function keyFromItem(item: TableItem): RecordKey | undefined {
  const pk = item[TABLE.partitionKey];
  const sk = item[TABLE.sortKey];
  if (typeof pk !== 'string' || typeof sk !== 'string' || !pk.startsWith(VOLUME_PREFIX)) return undefined;
  const volumeId = pk.slice(VOLUME_PREFIX.length);
  if (sk === VOLUME_SORT_KEY) return { kind: 'volume', volumeId };
  if (sk.startsWith(ATTACHMENT_SORT_PREFIX)) {
    return { kind: 'attachment', volumeId, instanceId: sk.slice(ATTACHMENT_SORT_PREFIX.length) };
  }
  return undefined;
}

/**
 * The record in a DynamoDB Stream image (`NewImage` / `OldImage`, still in attribute-value form),
 * as `fromItem` reads it. The stream event types of `aws-lambda` and of the SDK differ only in
 * typing, so any attribute-value map is accepted.
 */
export function fromStreamImage(image: Record<string, unknown>): unknown {
  return fromItem(itemFromAttributeValues(image));
}

/** The record key in a DynamoDB Stream record's `Keys` (attribute-value form); undefined when they name no record of ours. */
export function keyFromStreamKeys(keys: Record<string, unknown>): RecordKey | undefined {
  return keyFromItem(itemFromAttributeValues(keys));
}
