/**
 * DynamoDB as the engine sees it in the simulation: the in-memory record store behind a request
 * round trip, metered in on-demand request units. Items here are well under 1 KB, so every write
 * (conditional or not, failed conditions included) is one write unit and every item read is one
 * read unit (strongly consistent reads, as the adapter makes them); a Query or Scan costs one unit
 * per started 4 KB of items returned, taken as 8 records per unit (about 512 bytes each), at least one, and half that
 * when eventually consistent, as the adapter's queries of the index (which has no consistent
 * reads) and its Scans are.
 *
 * The table has one global secondary index (`byInstance`, ALL projection) whose keys only
 * attachment items carry. Each write that changes an attachment item (put, update, delete) is
 * written to the index too, one more write unit (index keys never change, so never two); a
 * write whose condition fails changes nothing and writes no index item.
 */
import type {
  ClaimResult,
  ListOptions,
  Page,
  ProvisionerRecord,
  RecordChanges,
  RecordKey,
  RecordStore,
  SharedRateBudget,
  TokensTaken,
  WriteCondition,
} from '../../lib/engine/ports.js';
import type { RateBucket, RateBudget } from '../../lib/engine/config.js';
import type { AttachmentRecord } from '../../lib/domain/records.js';
import type { RecordChangeEvent } from '../../lib/memory/store.js';
import type { EventLoop } from './event-loop.js';
import type { Lognormal } from './latency.js';
import type { Random } from './random.js';

const RECORDS_PER_QUERY_UNIT = 8;

/** The engine's in-memory record store behind a DynamoDB round trip, metered in on-demand read and write units (the header says how). */
export class MeteredRecordStore implements RecordStore {
  /** Write units on the table itself. */
  tableWriteUnits = 0;
  /** Write units on the instance index (attachment items written, changed or removed). */
  indexWriteUnits = 0;
  readUnits = 0;
  requests = 0;

  constructor(
    private readonly loop: EventLoop,
    private readonly random: Random,
    readonly inner: RecordStore & { onChange?(listener: (change: RecordChangeEvent) => void): unknown },
    private readonly latency: Lognormal,
  ) {
    // Every change the table makes is reported in order; those to attachment items reach the index.
    inner.onChange?.((change) => {
      if (change.key.kind === 'attachment') this.indexWriteUnits += 1;
    });
  }

  /** Table and index write units. */
  get writeUnits(): number {
    return this.tableWriteUnits + this.indexWriteUnits;
  }

  async get(key: RecordKey): Promise<ProvisionerRecord | undefined> {
    await this.roundTrip();
    this.readUnits += 1;
    return this.inner.get(key);
  }

  async getMany(keys: RecordKey[]): Promise<ProvisionerRecord[]> {
    if (keys.length === 0) return [];
    // BatchGetItem: 100 keys per request, requests in parallel.
    await this.roundTrip(Math.ceil(keys.length / 100));
    this.readUnits += keys.length;
    return this.inner.getMany(keys);
  }

  async attachmentsOfVolume(volumeId: string): Promise<AttachmentRecord[]> {
    await this.roundTrip();
    const items = await this.inner.attachmentsOfVolume(volumeId);
    this.readUnits += queryUnits(items.length, 'strong');
    return items;
  }

  /** Through the byInstance index: eventually consistent. */
  async attachmentsOfInstance(instanceId: string): Promise<AttachmentRecord[]> {
    await this.roundTrip();
    const items = await this.inner.attachmentsOfInstance(instanceId);
    this.readUnits += queryUnits(items.length, 'eventual');
    return items;
  }

  /** A Scan page: eventually consistent. */
  async list(options: ListOptions): Promise<Page<ProvisionerRecord>> {
    await this.roundTrip();
    const page = await this.inner.list(options);
    this.readUnits += queryUnits(page.items.length, 'eventual');
    return page;
  }

  async create(record: ProvisionerRecord): Promise<void> {
    await this.roundTrip();
    this.tableWriteUnits += 1;
    return this.inner.create(record);
  }

  async update<R extends ProvisionerRecord>(key: RecordKey, changes: RecordChanges<R>, condition?: WriteCondition): Promise<R> {
    await this.roundTrip();
    this.tableWriteUnits += 1;
    return this.inner.update<R>(key, changes, condition);
  }

  async remove(key: RecordKey, condition?: WriteCondition): Promise<void> {
    await this.roundTrip();
    this.tableWriteUnits += 1;
    return this.inner.remove(key, condition);
  }

  async claim(key: RecordKey, owner: string, now: number, leaseMs: number): Promise<ClaimResult> {
    await this.roundTrip();
    this.tableWriteUnits += 1;
    return this.inner.claim(key, owner, now, leaseMs);
  }

  async release(key: RecordKey, owner: string): Promise<void> {
    await this.roundTrip();
    this.tableWriteUnits += 1;
    return this.inner.release(key, owner);
  }

  private async roundTrip(requests = 1): Promise<void> {
    this.requests += requests;
    await this.loop.clock.sleep(this.latency.sample(this.random));
  }
}

/** An eventually consistent read costs half a strongly consistent one. */
function queryUnits(items: number, consistency: 'strong' | 'eventual'): number {
  const units = Math.max(1, Math.ceil(items / RECORDS_PER_QUERY_UNIT));
  return consistency === 'strong' ? units : units / 2;
}

/**
 * The shared rate budget as a table item in the simulation: a take is a strongly consistent
 * GetItem and a conditional PutItem (one read and one write unit, two round trips); reading the
 * line (`waitMs`) an eventually consistent GetItem. The grant is
 * made between the two at once, so the version conflicts of environments taking at the same
 * moment (a retry each) are not modelled.
 */
export class MeteredRateBudget implements SharedRateBudget {
  writeUnits = 0;
  readUnits = 0;

  constructor(
    private readonly loop: EventLoop,
    private readonly random: Random,
    private readonly inner: SharedRateBudget,
    private readonly latency: Lognormal,
  ) {}

  async take(bucket: RateBucket, count: number, budget: RateBudget, now: number, maxWaitMs: number): Promise<TokensTaken> {
    this.readUnits += 1;
    await this.loop.clock.sleep(this.latency.sample(this.random));
    const grant = await this.inner.take(bucket, count, budget, this.loop.now(), maxWaitMs);
    this.writeUnits += 1;
    await this.loop.clock.sleep(this.latency.sample(this.random));
    return grant;
  }

  /** An eventually consistent GetItem: half a read unit, one round trip. */
  async waitMs(bucket: RateBucket, budget: RateBudget, now: number): Promise<number> {
    this.readUnits += 0.5;
    await this.loop.clock.sleep(this.latency.sample(this.random));
    return this.inner.waitMs(bucket, budget, now);
  }
}
