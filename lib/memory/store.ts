import { sameJson } from '../domain/canonical-json.js';
import { instanceIndexKeyValues, keyString, tableKey, type ProvisionerRecord, type RecordKey } from '../domain/records.js';
import { TABLE } from '../settings.js';
import {
  checkPageLimit,
  checkRecordChanges,
  checkScanSegment,
  ConditionFailedError,
  InvalidCursorError,
  ItemTooLargeError,
  type AttachmentRecord,
  type ClaimResult,
  type ListOptions,
  type Page,
  type RecordChanges,
  type RecordStore,
  type WriteCondition,
} from '../engine/ports.js';

/** One write, as a DynamoDB stream with NEW_AND_OLD_IMAGES would report it. */
export interface RecordChangeEvent {
  eventName: 'INSERT' | 'MODIFY' | 'REMOVE';
  key: RecordKey;
  oldRecord?: ProvisionerRecord;
  newRecord?: ProvisionerRecord;
  sequenceNumber: number;
}

type Listener = (change: RecordChangeEvent) => void;

/** Sort order of the table: partition key, then sort key. */
function orderKey(key: RecordKey): string {
  const { pk, sk } = tableKey(key);
  return `${pk}\u0000${sk}`;
}

/**
 * A stable hash of a partition key (32-bit FNV-1a of its UTF-8 bytes); modulo a parallel scan's
 * total it is the key's segment, so that, as in DynamoDB, a partition's items always fall in the
 * same segment.
 */
function partitionHash(partitionKey: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(partitionKey, 'utf8')) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  return hash;
}

/** A stored item, with the hash of its partition key kept for scan segments. */
interface StoredItem {
  key: RecordKey;
  record: ProvisionerRecord;
  partitionHash: number;
}

/** The index of the first of `sortedKeys` that sorts after `after`. */
function firstAfter(sortedKeys: readonly string[], after: string): number {
  let low = 0;
  let high = sortedKeys.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (sortedKeys[middle]! > after) high = middle;
    else low = middle + 1;
  }
  return low;
}

/** The key a raw item names, read the way the table would: from its identity fields. */
function keyOfRaw(raw: unknown): RecordKey {
  const item = raw as { kind?: unknown; volumeId?: unknown; instanceId?: unknown };
  if (typeof item?.volumeId !== 'string') throw new Error('a raw record needs a string volumeId');
  if (item.kind === 'attachment') {
    if (typeof item.instanceId !== 'string') throw new Error('a raw attachment needs a string instanceId');
    return { kind: 'attachment', volumeId: item.volumeId, instanceId: item.instanceId };
  }
  return { kind: 'volume', volumeId: item.volumeId };
}

/**
 * The size DynamoDB counts for an item's attributes, as it documents it ("Item sizes and formats"):
 * each attribute's name and value in bytes, a string's UTF-8 bytes, a number one byte per two
 * significant digits and one more (DynamoDB calls that approximate), a boolean or null one byte, a
 * map or list 3 bytes and its elements (a map's with their names), each one byte more.
 */
export function approximateItemBytes(item: object): number {
  let bytes = 0;
  for (const [name, value] of Object.entries(item)) {
    if (value !== undefined) bytes += Buffer.byteLength(name, 'utf8') + valueBytes(value);
  }
  return bytes;
}

function valueBytes(value: unknown): number {
  if (typeof value === 'string') return Buffer.byteLength(value, 'utf8');
  if (typeof value === 'number') return numberBytes(value);
  if (value === null || typeof value !== 'object') return 1;
  if (Array.isArray(value)) return value.reduce((sum: number, element) => sum + valueBytes(element) + 1, 3);
  let bytes = 3;
  for (const [name, element] of Object.entries(value)) {
    if (element !== undefined) bytes += Buffer.byteLength(name, 'utf8') + valueBytes(element) + 1;
  }
  return bytes;
}

/** One byte per two significant digits (leading and trailing zeros trimmed), and one more. */
function numberBytes(value: number): number {
  let digits = 0;
  if (Number.isSafeInteger(value)) {
    // Most numbers are whole (times, sizes, counts): counted without a string.
    let rest = Math.abs(value);
    while (rest !== 0 && rest % 10 === 0) rest /= 10;
    for (; rest >= 1; rest = Math.floor(rest / 10)) digits++;
  } else {
    digits = String(Math.abs(value)).split('e')[0]!.replace('.', '').replace(/^0+|0+$/g, '').length;
  }
  return Math.ceil(Math.max(digits, 1) / 2) + 1;
}

/** The bytes of the table keys an item is stored with: `pk` and `sk`, and an attachment's instance index keys. */
function keyAttributeBytes(key: RecordKey): number {
  const { pk, sk } = tableKey(key);
  let bytes = TABLE.partitionKey.length + Buffer.byteLength(pk, 'utf8') + TABLE.sortKey.length + Buffer.byteLength(sk, 'utf8');
  if (key.kind === 'attachment') {
    const { partition, sort } = instanceIndexKeyValues(key.instanceId, key.volumeId);
    bytes += TABLE.instanceIndex.partitionKey.length + Buffer.byteLength(partition, 'utf8') + TABLE.instanceIndex.sortKey.length + Buffer.byteLength(sort, 'utf8');
  }
  return bytes;
}

/**
 * Throws, as the DynamoDB client does before it sends a write, for a number it does not write: NaN,
 * an infinity, or one beyond Number.MAX_SAFE_INTEGER either way (not read back exactly). An item
 * written straight into the table may hold one of the last (`putRaw`): only what the store writes
 * is checked.
 */
function checkWritableNumbers(key: RecordKey, value: unknown, path: string): void {
  if (typeof value === 'number') {
    if (!(Math.abs(value) <= Number.MAX_SAFE_INTEGER)) throw new Error(`${keyString(key)}: ${path} is ${value}, a number the DynamoDB client does not write`);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  for (const [name, element] of Object.entries(value)) checkWritableNumbers(key, element, path === '' ? name : `${path}.${name}`);
}

/**
 * DynamoDB's bounds on a number's size (from 1E-130 to 9.99…E+125 either way, or 0; a double has
 * fewer than its 38 significant digits): what no client can write into the table, however it
 * bypasses the API. The upper bound is the first power of ten past it.
 */
const NUMBER_BOUNDS = { smallest: 1e-130, beyond: 1e126 };
/** DynamoDB's limits on a string key value in UTF-8 bytes: a partition key's and a sort key's. */
const KEY_MAX_BYTES = { partition: 2048, sort: 1024 };

/**
 * Throws, as DynamoDB does, for an item written straight into the table that no client could write:
 * a number DynamoDB cannot hold (NaN, an infinity, one out of its range) or a table key longer
 * than DynamoDB takes.
 */
function checkStorable(key: RecordKey, raw: object): void {
  const { pk, sk } = tableKey(key);
  if (Buffer.byteLength(pk, 'utf8') > KEY_MAX_BYTES.partition) throw new Error(`${keyString(key)}: the partition key is over DynamoDB's ${KEY_MAX_BYTES.partition} bytes`);
  if (Buffer.byteLength(sk, 'utf8') > KEY_MAX_BYTES.sort) throw new Error(`${keyString(key)}: the sort key is over DynamoDB's ${KEY_MAX_BYTES.sort} bytes`);
  const check = (value: unknown, path: string): void => {
    if (typeof value === 'number') {
      const size = Math.abs(value);
      if (!(size < NUMBER_BOUNDS.beyond) || (size !== 0 && size < NUMBER_BOUNDS.smallest)) throw new Error(`${keyString(key)}: ${path} is ${value}, a number DynamoDB cannot hold`);
      return;
    }
    if (value === null || typeof value !== 'object') return;
    for (const [name, element] of Object.entries(value)) check(element, path === '' ? name : `${path}.${name}`);
  };
  check(raw, '');
}

/** Refuses, as DynamoDB does, to store an item larger than `TABLE.maxItemBytes`, its table keys counted. */
function checkItemSize(key: RecordKey, record: object): void {
  const bytes = approximateItemBytes(record) + keyAttributeBytes(key);
  if (bytes > TABLE.maxItemBytes) {
    throw new ItemTooLargeError(`${keyString(key)}: item size has exceeded the maximum allowed size (${bytes} bytes)`);
  }
}

/**
 * The record table in memory, with DynamoDB's semantics: every write copies what it is given and
 * no one changes a stored record in place (reads and change listeners get the stored record
 * itself, frozen, so a caller that tries to change it gets a TypeError rather than a silent
 * difference from DynamoDB's copies, and `parseRecord` judges each item once however often it is
 * read), every write bumps `version`, conditions are checked atomically, updates never create, an
 * item larger than DynamoDB's limit is refused, and each write is reported to change listeners in
 * order (the in-memory stream).
 */
export class MemoryRecordStore implements RecordStore {
  private readonly items = new Map<string, StoredItem>();
  /** Table order, rebuilt only after a key is added or removed. */
  private sortedKeys?: string[];
  /** Attachment keys by volume and by instance (the table's partition and the instance GSI). */
  private readonly byVolume = new Map<string, Set<string>>();
  private readonly byInstance = new Map<string, Set<string>>();
  private readonly listeners = new Set<Listener>();
  private readonly faults = new Map<keyof RecordStore, { error: Error; times: number }>();
  private sequence = 0;
  /** Item reads and writes, for cost estimates. */
  reads = 0;
  writes = 0;

  onChange(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Makes the next `times` calls of `method` throw `error` (infrastructure fault injection). */
  failNext(method: keyof RecordStore, error: Error, times = 1): void {
    this.faults.set(method, { error, times });
  }

  /** Drops every failure `failNext` set that has not happened yet. */
  clearFaults(): void {
    this.faults.clear();
  }

  /**
   * Writes an unvalidated item straight into the table, as a client bypassing the API could; one
   * DynamoDB would refuse (too large, a key too long, a number it cannot hold) is refused and
   * nothing is written.
   */
  putRaw(raw: unknown): void {
    const key = keyOfRaw(raw);
    checkStorable(key, raw as object);
    checkItemSize(key, raw as object);
    const old = this.items.get(orderKey(key))?.record;
    const record = this.storedCopy(raw) as ProvisionerRecord;
    this.writes++;
    // DynamoDB Streams writes no record for a put that changes nothing in the item.
    if (old && sameJson(old, record)) return;
    this.put(key, record);
    this.emit(old ? 'MODIFY' : 'INSERT', key, old, record);
  }

  /** Every record, in table order (tests and the simulator). */
  all(): ProvisionerRecord[] {
    return this.sorted().map((entry) => entry.record);
  }

  async get(key: RecordKey): Promise<ProvisionerRecord | undefined> {
    this.injectFault('get');
    this.reads++;
    const found = this.items.get(orderKey(key));
    return found?.record;
  }

  async getMany(keys: RecordKey[]): Promise<ProvisionerRecord[]> {
    this.injectFault('getMany');
    const unique = new Map(keys.map((key) => [orderKey(key), key]));
    this.reads += unique.size;
    return [...unique.keys()].flatMap((k) => {
      const found = this.items.get(k);
      return found ? [found.record] : [];
    });
  }

  async attachmentsOfVolume(volumeId: string): Promise<AttachmentRecord[]> {
    this.injectFault('attachmentsOfVolume');
    return this.attachments(this.byVolume.get(volumeId));
  }

  async attachmentsOfInstance(instanceId: string): Promise<AttachmentRecord[]> {
    this.injectFault('attachmentsOfInstance');
    return this.attachments(this.byInstance.get(instanceId));
  }

  async list(options: ListOptions): Promise<Page<ProvisionerRecord>> {
    this.injectFault('list');
    checkPageLimit(options.limit);
    const segment = options.segment;
    if (segment) checkScanSegment(segment);
    let after: string | undefined;
    if (options.cursor !== undefined) {
      // Decoding a string never fails (characters outside base64url are skipped): what it decodes to is checked.
      after = Buffer.from(options.cursor, 'base64url').toString('utf8');
      if (!after.startsWith('VOLUME#')) throw new InvalidCursorError('invalid cursor');
      // DynamoDB takes a segment's cursor only back to the same segment.
      if (segment && partitionHash(after.split('\u0000')[0]!) % segment.total !== segment.index) throw new InvalidCursorError('cursor of another segment');
    }
    const keys = this.keysInOrder();
    const pageSize = options.limit;
    const page: StoredItem[] = [];
    let more = false;
    // Keys are in table order: start past the cursor, stop at the first match after a full page.
    for (let i = after === undefined ? 0 : firstAfter(keys, after); i < keys.length; i++) {
      const entry = this.items.get(keys[i]!)!;
      if ((options.kind && entry.key.kind !== options.kind) || (segment && entry.partitionHash % segment.total !== segment.index)) continue;
      if (page.length >= pageSize) {
        more = true;
        break;
      }
      page.push(entry);
    }
    this.reads += page.length;
    const last = page[page.length - 1];
    const cursor = more && last ? Buffer.from(orderKey(last.key), 'utf8').toString('base64url') : undefined;
    return { items: page.map((entry) => entry.record), ...(cursor ? { cursor } : {}) };
  }

  async create(record: ProvisionerRecord): Promise<void> {
    this.injectFault('create');
    const key = record.kind === 'volume'
      ? { kind: 'volume' as const, volumeId: record.volumeId }
      : { kind: 'attachment' as const, volumeId: record.volumeId, instanceId: record.instanceId };
    const written = { ...record, version: 1 };
    // Before the condition, as the DynamoDB client refuses the request before it is sent.
    checkWritableNumbers(key, written, '');
    const existing = this.items.get(orderKey(key));
    if (existing) throw new ConditionFailedError(`${keyString(key)} already exists`, existing.record);
    const stored = this.storedCopy(written);
    checkItemSize(key, stored);
    this.put(key, stored);
    this.writes++;
    this.emit('INSERT', key, undefined, stored);
  }

  async update<R extends ProvisionerRecord>(key: RecordKey, changes: RecordChanges<R>, condition?: WriteCondition): Promise<R> {
    this.injectFault('update');
    checkRecordChanges(changes);
    checkWritableNumbers(key, changes, '');
    const current = this.checked(key, condition);
    // Stored records are never changed in place, so the new version may share the fields it
    // leaves as they are with the old one.
    const next = { ...current } as unknown as Record<string, unknown>;
    for (const [field, value] of Object.entries(changes as Record<string, unknown>)) {
      if (value === undefined) continue;
      if (value === null) delete next[field];
      else next[field] = this.storedCopy(value);
    }
    // DynamoDB's `if_not_exists(version, 0) + 1`: an item written into the table without one gets 1.
    // One that is no number (written straight into the table) is numbered afresh, as the DynamoDB store does.
    next.version = typeof current.version === 'number' ? current.version + 1 : 1;
    checkItemSize(key, next);
    const written = Object.freeze(next) as unknown as ProvisionerRecord;
    this.items.get(orderKey(key))!.record = written;
    this.writes++;
    this.emit('MODIFY', key, current, written);
    return written as R;
  }

  async remove(key: RecordKey, condition?: WriteCondition): Promise<void> {
    this.injectFault('remove');
    const current = this.checked(key, condition);
    this.drop(key);
    this.writes++;
    this.emit('REMOVE', key, current, undefined);
  }

  async claim(key: RecordKey, owner: string, now: number, leaseMs: number): Promise<ClaimResult> {
    this.injectFault('claim');
    const found = this.items.get(orderKey(key));
    if (!found) return { ok: false, reason: 'missing' };
    const held = found.record.claim as StoredClaim;
    // DynamoDB's condition: free when absent, lapsed or the owner's own (one written by hand as null is there).
    if (held !== undefined && held?.owner !== owner && !lapsed(held, now)) {
      return { ok: false, reason: 'held', record: found.record };
    }
    const record = await this.update(key, { claim: { owner, expiresAt: now + leaseMs } });
    return { ok: true, record };
  }

  async release(key: RecordKey, owner: string): Promise<void> {
    this.injectFault('release');
    const found = this.items.get(orderKey(key));
    if (!found || found.record.claim?.owner !== owner) return;
    await this.update(key, { claim: null });
  }

  private checked(key: RecordKey, condition: WriteCondition | undefined): ProvisionerRecord {
    const found = this.items.get(orderKey(key));
    if (!found) throw new ConditionFailedError(`${keyString(key)} does not exist`);
    const record = found.record;
    const failure = conditionFailure(record, condition);
    if (failure) throw new ConditionFailedError(`${keyString(key)}: ${failure}`, record);
    return record;
  }

  private attachments(keys: Set<string> | undefined): AttachmentRecord[] {
    const found = [...(keys ?? [])]
      .sort()
      .map((k) => this.items.get(k)?.record)
      .filter((r): r is AttachmentRecord => r?.kind === 'attachment');
    this.reads += found.length;
    return found;
  }

  /** Every key in table order, sorted again only after a key was added or removed. */
  private keysInOrder(): string[] {
    return (this.sortedKeys ??= [...this.items.keys()].sort());
  }

  private sorted(): StoredItem[] {
    return this.keysInOrder().map((k) => this.items.get(k)!);
  }

  private put(key: RecordKey, record: ProvisionerRecord): void {
    const k = orderKey(key);
    const stored = this.items.get(k);
    if (stored) {
      stored.record = record;
      return;
    }
    this.sortedKeys = undefined;
    if (key.kind === 'attachment') {
      index(this.byVolume, key.volumeId).add(k);
      index(this.byInstance, key.instanceId).add(k);
    }
    this.items.set(k, { key, record, partitionHash: partitionHash(tableKey(key).pk) });
  }

  private drop(key: RecordKey): void {
    const k = orderKey(key);
    this.items.delete(k);
    this.sortedKeys = undefined;
    if (key.kind === 'attachment') {
      this.byVolume.get(key.volumeId)?.delete(k);
      this.byInstance.get(key.instanceId)?.delete(k);
    }
  }

  private emit(eventName: RecordChangeEvent['eventName'], key: RecordKey, oldRecord?: ProvisionerRecord, newRecord?: ProvisionerRecord): void {
    const change: RecordChangeEvent = { eventName, key, sequenceNumber: ++this.sequence };
    if (oldRecord) change.oldRecord = oldRecord;
    if (newRecord) change.newRecord = newRecord;
    for (const listener of this.listeners) listener(change);
  }

  private storedCopy<T>(value: T): T {
    return deepCopy(value);
  }

  private injectFault(method: keyof RecordStore): void {
    const fault = this.faults.get(method);
    if (!fault) return;
    if (--fault.times <= 0) this.faults.delete(method);
    throw fault.error;
  }
}

function index(map: Map<string, Set<string>>, name: string): Set<string> {
  let keys = map.get(name);
  if (!keys) map.set(name, (keys = new Set()));
  return keys;
}

/** A claim as an item written straight into the table may hold it. */
type StoredClaim = { owner?: unknown; expiresAt?: unknown } | null | undefined;

/**
 * Whether `claim` has lapsed at `now` as DynamoDB compares it: its expiresAt a number no later
 * than `now`. One without a numeric expiresAt (written by hand) never lapses.
 */
function lapsed(claim: StoredClaim, now: number): boolean {
  return typeof claim?.expiresAt === 'number' && claim.expiresAt <= now;
}

/** Why `condition` does not hold for `record`, or undefined when it does. */
function conditionFailure(record: ProvisionerRecord, condition: WriteCondition | undefined): string | undefined {
  if (!condition) return undefined;
  if (condition.claimOwner !== undefined) {
    const claim = record.claim as StoredClaim;
    if (claim?.owner !== condition.claimOwner) return `claim is not held by ${condition.claimOwner}`;
    // Live while now < expiresAt, a number (DynamoDB's condition).
    if (condition.now !== undefined && !(typeof claim.expiresAt === 'number' && claim.expiresAt > condition.now)) return 'claim has expired';
  }
  // Version 0 matches an item without one, as the DynamoDB store's attribute_not_exists (not one of null).
  if (condition.version !== undefined && (record.version === undefined ? 0 : record.version) !== condition.version) {
    return `version is ${record.version}, expected ${condition.version}`;
  }
  if (condition.life !== undefined && record.life !== condition.life) return `life is ${record.life}, expected ${condition.life}`;
  if (condition.generation !== undefined) {
    if (record.generation !== condition.generation) return `generation is ${record.generation}, expected ${condition.generation}`;
  }
  if (condition.createdAt !== undefined && record.createdAt !== condition.createdAt) return `created at ${record.createdAt}, expected ${condition.createdAt}`;
  return undefined;
}

/**
 * A deep copy of JSON-shaped data (what a table item holds), frozen: written once, it is handed
 * to every reader and listener as it is. Several times faster than structuredClone
 * for small records (a million changes go through the simulator's store).
 */
function deepCopy<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  const copy: unknown = Array.isArray(value) ? value.map((element: unknown) => deepCopy(element)) : copyFields(value as Record<string, unknown>);
  return Object.freeze(copy) as T;
}

function copyFields(source: Record<string, unknown>): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  const keys = Object.keys(source);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const field = source[key];
    // Most fields are strings and numbers: copied without a call.
    copy[key] = field === null || typeof field !== 'object' ? field : deepCopy(field);
  }
  return copy;
}
