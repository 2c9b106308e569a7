/**
 * The design users write by hand, for comparison: a stream-triggered function that fans out one
 * worker invocation per stream record; the worker makes the EC2 calls for that one record and
 * waits on the SDK's waiters in between, with the SDK's default retries. Its table holds one item
 * per volume (spec, instance, device, state, EC2 volume id).
 */
import { ProviderError, type VolumeProvider } from '../../lib/engine/ports.js';
import { OWNERSHIP_TAGS } from '../../lib/settings.js';
import type { DesignContext, MeasuredDesign } from '../run.js';
import type { EventLoop } from '../sim/event-loop.js';
import type { LatencyModel } from '../sim/latency.js';
import { SimulatedFunction } from '../sim/lambda.js';
import type { Random } from '../sim/random.js';
import { StreamSimulator, type StreamMappingSettings } from '../sim/stream.js';
import type { LifecycleObserver, VolumeRequest } from '../workload.js';
import { StandardRetry, waitUntilVolumeState } from './sdk.js';

export type NaiveState = 'requested' | 'attached' | 'error';

export interface NaiveItem {
  id: string;
  instanceId: string;
  availabilityZone: string;
  device: string;
  sizeGiB: number;
  life: 'alive' | 'dying';
  state: NaiveState;
  ebsVolumeId?: string;
  message?: string;
}

export interface NaiveChange {
  id: string;
  eventName: 'INSERT' | 'MODIFY' | 'REMOVE';
  oldImage?: NaiveItem;
  newImage?: NaiveItem;
}

/** Lambda's defaults for a DynamoDB stream trigger a user does not tune. */
export const NAIVE_STREAM_MAPPING: Omit<StreamMappingSettings, 'shards'> = {
  batchSize: 100,
  maxBatchingWindowSeconds: 0,
  retryAttempts: -1,
};

/**
 * The naive functions' settings: Lambda's defaults, except the timeout (SimulatedFunction's
 * 15-minute default, Lambda's maximum: its default 3 s would stop every waiter).
 */
export const NAIVE_SETTINGS = {
  /** Lambda's default memory size. */
  memoryMiB: 128,
  /** Lambda's default account concurrency limit per Region. */
  accountConcurrency: 1000,
  /** The waiters' maxWaitTime a user passes (the SDK requires one). */
  maxWaitTimeSeconds: 300,
} as const;

/** The naive design's table: plain items, each write one write unit, each change a stream record. */
class NaiveTable {
  private items = new Map<string, NaiveItem>();
  private sequence = 0;
  writeUnits = 0;
  readUnits = 0;

  constructor(private readonly onChange: (change: NaiveChange) => void) {}

  put(item: NaiveItem): void {
    this.writeUnits++;
    const old = this.items.get(item.id);
    this.items.set(item.id, { ...item });
    this.emit(old ? 'MODIFY' : 'INSERT', old, item);
  }

  update(id: string, changes: Partial<NaiveItem>): void {
    this.writeUnits++;
    const old = this.items.get(id);
    if (!old) return;
    const next = { ...old, ...changes };
    this.items.set(id, next);
    this.emit('MODIFY', old, next);
  }

  delete(id: string): void {
    this.writeUnits++;
    const old = this.items.get(id);
    if (!old) return;
    this.items.delete(id);
    this.emit('REMOVE', old, undefined);
  }

  size(): number {
    return this.items.size;
  }

  private emit(eventName: NaiveChange['eventName'], oldImage: NaiveItem | undefined, newImage: NaiveItem | undefined): void {
    this.onChange({ id: String(++this.sequence), eventName, oldImage, newImage });
  }
}

/** The hand-written baseline: a stream-triggered dispatcher fanning each record out to a worker that calls EC2 and waits with the SDK's waiters. */
export class NaiveDesign implements MeasuredDesign {
  readonly name = 'naive';
  /** Lambda's default architecture, which a function written with the defaults runs on. */
  readonly lambdaArchitecture = 'x86_64' as const;
  readonly table: NaiveTable;
  readonly dispatcher: SimulatedFunction;
  readonly worker: SimulatedFunction;
  readonly stream: StreamSimulator<NaiveChange>;
  /** SDK retries and throttling errors seen by all workers. */
  sdkRetries = 0;
  sdkThrottlingErrors = 0;
  private failedByThrottling = 0;
  private readonly loop: EventLoop;
  private readonly random: Random;
  private readonly ec2: VolumeProvider;
  private readonly latencies: LatencyModel;
  private readonly observer: LifecycleObserver;

  constructor({ loop, random, ec2, latencies, observer, shards }: DesignContext) {
    this.loop = loop;
    this.random = random;
    this.ec2 = ec2;
    this.latencies = latencies;
    this.observer = observer;
    this.dispatcher = new SimulatedFunction(loop, 'naive-dispatcher', NAIVE_SETTINGS.memoryMiB);
    this.worker = new SimulatedFunction(loop, 'naive-worker', NAIVE_SETTINGS.memoryMiB, NAIVE_SETTINGS.accountConcurrency);
    this.stream = new StreamSimulator<NaiveChange>(
      loop,
      random.fork(),
      { ...NAIVE_STREAM_MAPPING, shards },
      latencies.streamPropagation,
      this.dispatcher,
      (batch) => this.dispatch(batch),
      (change) => change.id,
    );
    this.table = new NaiveTable((change) => {
      this.stream.publish((change.newImage ?? change.oldImage)!.id, change);
      this.report(change);
    });
  }

  functions(): SimulatedFunction[] {
    return [this.dispatcher, this.worker];
  }

  sqsRequests(): number {
    return 0;
  }

  dynamodbWriteUnits(): number {
    return this.table.writeUnits;
  }

  dynamodbReadUnits(): number {
    return this.table.readUnits;
  }

  operationsFailedByThrottling(): number {
    return this.failedByThrottling;
  }

  sdkRetryCounts(): { retries: number; throttlingErrors: number } {
    return { retries: this.sdkRetries, throttlingErrors: this.sdkThrottlingErrors };
  }

  async request(volume: VolumeRequest): Promise<void> {
    await this.loop.clock.sleep(this.latencies.dynamodbRequest.sample(this.random));
    this.table.put({ ...volume, life: 'alive', state: 'requested' });
  }

  async release(id: string): Promise<void> {
    await this.loop.clock.sleep(this.latencies.dynamodbRequest.sample(this.random));
    this.table.update(id, { life: 'dying' });
  }

  /** The stream handler: one asynchronous worker invocation per record. */
  private async dispatch(batch: NaiveChange[]): Promise<{ failedIds: string[] }> {
    await Promise.all(
      batch.map(async (change) => {
        // The Invoke API call (InvocationType Event) returns once Lambda has queued the event.
        await this.loop.clock.sleep(this.latencies.sqsRequest.sample(this.random));
        void this.worker.invokeAsync(() => this.work(change));
      }),
    );
    return { failedIds: [] };
  }

  /** The per-record worker, as a user writes it. */
  private async work(change: NaiveChange): Promise<void> {
    const item = change.newImage;
    const sdk = new StandardRetry(this.loop.clock, this.random);
    try {
      if (change.eventName === 'INSERT' && item) await this.provision(item, sdk);
      else if (change.eventName === 'MODIFY' && item?.life === 'dying' && change.oldImage?.life === 'alive') await this.teardown(item, sdk);
    } finally {
      this.sdkRetries += sdk.retries;
      this.sdkThrottlingErrors += sdk.throttlingErrors;
    }
  }

  private async provision(item: NaiveItem, sdk: StandardRetry): Promise<void> {
    const { clock } = this.loop;
    let ebsVolumeId: string | undefined;
    try {
      const volume = await sdk.call(() =>
        this.ec2.createVolume({
          // A hand-written handler passes no ClientToken; the SDK fills in one per call (kept over
          // its retries). One per attempt here: a refused attempt does nothing, no other error is retried.
          clientToken: randomTokenFrom(this.random),
          availabilityZone: item.availabilityZone,
          spec: { sizeGiB: item.sizeGiB, volumeType: 'gp3', availabilityZone: item.availabilityZone },
          tags: { [OWNERSHIP_TAGS.record]: item.id },
        }),
      );
      ebsVolumeId = volume.ebsVolumeId;
      await waitUntilVolumeState(this.ec2, sdk, clock, this.random, ebsVolumeId, 'available', NAIVE_SETTINGS.maxWaitTimeSeconds);
      const id = ebsVolumeId;
      await sdk.call(() => this.ec2.attachVolume({ ebsVolumeId: id, instanceId: item.instanceId, device: item.device }));
      await waitUntilVolumeState(this.ec2, sdk, clock, this.random, ebsVolumeId, 'in-use', NAIVE_SETTINGS.maxWaitTimeSeconds);
      await this.write(() => this.table.update(item.id, { state: 'attached', ebsVolumeId: id }));
    } catch (error) {
      await this.write(() => this.table.update(item.id, { state: 'error', ebsVolumeId, message: describe(error) }));
    }
  }

  private async teardown(item: NaiveItem, sdk: StandardRetry): Promise<void> {
    const { clock } = this.loop;
    const ebsVolumeId = item.ebsVolumeId;
    try {
      if (ebsVolumeId) {
        if (item.state === 'attached') {
          await sdk.call(() => this.ec2.detachVolume({ ebsVolumeId, instanceId: item.instanceId }));
          await waitUntilVolumeState(this.ec2, sdk, clock, this.random, ebsVolumeId, 'available', NAIVE_SETTINGS.maxWaitTimeSeconds);
        }
        await sdk.call(() => this.ec2.deleteVolume(ebsVolumeId));
      }
      await this.write(() => this.table.delete(item.id));
    } catch (error) {
      await this.write(() => this.table.update(item.id, { state: 'error', message: describe(error) }));
    }
  }

  private async write(apply: () => void): Promise<void> {
    await this.loop.clock.sleep(this.latencies.dynamodbRequest.sample(this.random));
    apply();
  }

  /** Tells the workload what a client polling the table would see. */
  private report(change: NaiveChange): void {
    const { newImage, oldImage } = change;
    if (change.eventName === 'REMOVE' && oldImage) return this.observer.finished(oldImage.id);
    if (!newImage || newImage.state === oldImage?.state) return;
    if (newImage.state === 'attached') this.observer.attached(newImage.id);
    if (newImage.state === 'error') {
      if (newImage.message?.includes('RequestLimitExceeded')) this.failedByThrottling++;
      this.observer.failed(newImage.id, newImage.message ?? 'error');
    }
  }
}

function randomTokenFrom(random: Random): string {
  return `naive-${Math.floor(random.next() * 2 ** 48).toString(36)}`;
}

function describe(error: unknown): string {
  if (error instanceof ProviderError) return `${error.code}: ${error.message}`;
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

