/**
 * The provisioner on simulated AWS: the real engine (watcher and executor) driven through its
 * ports. Records live in the engine's in-memory store behind a metered DynamoDB layer; the
 * table's changes reach the watcher through the simulated stream with the watcher's event source
 * settings; the watcher's and executor's messages go through the simulated SQS queue to the
 * executor with its event source settings. Each concurrently running invocation gets its own
 * Executor / Watcher instance, as each Lambda execution environment would (so the fallback rate
 * shares are per environment, as deployed); all executors take EC2 tokens from one shared rate
 * budget, a metered table item like the deployed one.
 */
import { VolumeService } from '../lib/api/service.js';
import type { AttachmentRecord, RecordKey, VolumeRecord } from '../lib/domain/records.js';
import { tableKey } from '../lib/domain/records.js';
import { Executor, Watcher, type Log, type Metrics, type OperationKind, type OperationOutcome } from '../lib/engine/index.js';
import { Reconciler } from '../lib/engine/reconciler.js';
import { MemoryRateBudget, MemoryRecordStore } from '../lib/memory/index.js';
import { API, EXECUTOR, QUEUE, RECONCILER, WATCHER } from '../lib/settings.js';
import type { DesignContext, MeasuredDesign } from './run.js';
import type { Random } from './sim/random.js';
import type { IdlePass } from './standing.js';
import { MeteredRateBudget, MeteredRecordStore } from './sim/dynamodb.js';
import { SimulatedFunction } from './sim/lambda.js';
import { SimulatedQueue, type Delivery } from './sim/sqs.js';
import { ApiGatewayThrottles } from './sim/api-gateway.js';
import { retryDelayMs, SDK_RETRY } from './naive/sdk.js';
import { NAIVE_SETTINGS } from './naive/design.js';
import { StreamSimulator } from './sim/stream.js';
import type { VolumeRequest } from './workload.js';

/** A change as the watcher takes it. */
interface WatcherChange {
  id: string;
  eventName: 'INSERT' | 'MODIFY' | 'REMOVE';
  key: RecordKey;
  oldRecord?: VolumeRecord | AttachmentRecord;
  newRecord?: VolumeRecord | AttachmentRecord;
}

/** Counts operation outcomes, as the CloudWatch metrics would. */
export class CountingMetrics implements Metrics {
  readonly operations = new Map<string, number>();
  readonly counters = new Map<string, number>();

  operation(event: { operation: OperationKind; outcome: OperationOutcome; latencyMs?: number }): void {
    const key = `${event.operation}/${event.outcome}`;
    this.operations.set(key, (this.operations.get(key) ?? 0) + 1);
  }

  count(name: string, value = 1): void {
    this.counters.set(name, (this.counters.get(name) ?? 0) + value);
  }
}

/** Counts warnings and errors and keeps the first 20 of them; drops debug and info. */
export class QuietLog implements Log {
  warnings = 0;
  errors = 0;
  readonly samples: string[] = [];

  debug(): void {}
  info(): void {}
  warn(message: string, attributes?: Record<string, unknown>): void {
    this.warnings++;
    this.keep('warn', message, attributes);
  }
  error(message: string, attributes?: Record<string, unknown>): void {
    this.errors++;
    this.keep('error', message, attributes);
  }

  private keep(level: string, message: string, attributes?: Record<string, unknown>): void {
    if (this.samples.length < 20) this.samples.push(`${level}: ${message} ${attributes ? JSON.stringify(attributes) : ''}`);
  }
}

/**
 * CPU time on one full core per stream record (watcher) and per message (executor), as
 * `npm run bench:cpu` measures it through the real handlers and SDK clients (BENCHMARKS.md);
 * nearly all of it is the SDK's signing, HTTP and parsing.
 */
export const CPU_MS_PER_ITEM = { watcher: 3.6, executor: 5.6 } as const;

/**
 * API Gateway's account throttle per Region, a token bucket: 10 000 requests per second, a burst
 * of 5 000 (API Gateway developer guide, "Throttle requests to your REST APIs"); beyond it a
 * request is answered 429 Too Many Requests without reaching the integration.
 */
export const API_GATEWAY_ACCOUNT_THROTTLE = { ratePerSecond: 10_000, burst: 5_000 } as const;

/**
 * A client asking for many volumes at once retries every throttled (429) or throttled-function
 * (500) answer until the request is taken, as a bulk client must, with the SDK's jittered
 * exponential backoff for throttling (`retryDelayMs`: base 1 s, capped at 20 s) and no cap on attempts.
 */
export const BULK_CLIENT_BASE_DELAY_MS = SDK_RETRY.throttlingBaseDelayMs;

/**
 * The stack reserves concurrency for the executor (its mapping's maximum) and the reconciler (1);
 * the API and watcher functions share what is left of the account's concurrency.
 */
export const RESERVED_CONCURRENCY = EXECUTOR.maxConcurrency + 1;
export const UNRESERVED_CONCURRENCY = NAIVE_SETTINGS.accountConcurrency - RESERVED_CONCURRENCY;

/**
 * The provisioner as deployed: API function, table with its stream and watcher, queue and executor,
 * reconciler on its schedule, wired with the settings the stack deploys, against the simulated AWS.
 */
export class ProvisionerDesign implements MeasuredDesign {
  readonly name = 'provisioner';
  /** As the stack deploys every function (infra/constructs/functions.ts). */
  readonly lambdaArchitecture = 'arm64' as const;
  readonly store: MeteredRecordStore;
  readonly rateBudget: MeteredRateBudget;
  readonly memoryStore: MemoryRecordStore;
  readonly queue: SimulatedQueue;
  readonly stream: StreamSimulator<WatcherChange>;
  readonly watcherFunction: SimulatedFunction;
  readonly executorFunction: SimulatedFunction;
  readonly reconcilerFunction: SimulatedFunction;
  /** The API's function behind API Gateway (REST), one invocation per client request. */
  readonly apiFunction: SimulatedFunction;
  /** The API's own code, against the same metered table and shared budget (read only) as the engine. */
  readonly service: VolumeService;
  /** REST API requests API Gateway passed to the API function, throttled by Lambda or not (billed per request). */
  private apiRequests = 0;
  /** Requests API Gateway's throttles (the account's, then the stage's for the method) answered 429 (not passed on, not billed). */
  private apiGatewayThrottled = 0;
  /** Invocations of the API function Lambda throttled (no unreserved concurrency left): API Gateway answers 500. */
  private apiLambdaThrottled = 0;
  /** Client calls made again after a 429 or a 500. */
  private apiClientRetries = 0;
  private readonly apiThrottles: ApiGatewayThrottles;
  private readonly clientRandom: Random;
  private reconcilerPasses = 0;
  private reconcilerRequeued = 0;
  readonly metrics = new CountingMetrics();
  readonly log = new QuietLog();
  private readonly idleExecutors: Executor[] = [];
  private readonly idleWatchers: Watcher[] = [];
  private owners = 0;
  private failedByThrottling = 0;
  private readonly startedAt: number;

  constructor(private readonly context: DesignContext) {
    const { loop, random, latencies } = context;
    this.startedAt = loop.now();
    this.memoryStore = new MemoryRecordStore();
    this.store = new MeteredRecordStore(loop, random.fork(), this.memoryStore, latencies.dynamodbRequest);
    this.rateBudget = new MeteredRateBudget(loop, random.fork(), new MemoryRateBudget(), latencies.dynamodbRequest);
    this.watcherFunction = new SimulatedFunction(loop, 'watcher', WATCHER.memoryMiB, Number.POSITIVE_INFINITY, WATCHER.timeoutSeconds * 1000, CPU_MS_PER_ITEM.watcher);
    this.executorFunction = new SimulatedFunction(loop, 'executor', EXECUTOR.memoryMiB, EXECUTOR.maxConcurrency, EXECUTOR.timeoutSeconds * 1000, CPU_MS_PER_ITEM.executor);
    this.reconcilerFunction = new SimulatedFunction(loop, 'reconciler', RECONCILER.memoryMiB, 1, RECONCILER.timeoutSeconds * 1000);
    this.apiFunction = new SimulatedFunction(loop, 'api', API.memoryMiB, UNRESERVED_CONCURRENCY, API.timeoutSeconds * 1000);
    this.apiThrottles = new ApiGatewayThrottles(API_GATEWAY_ACCOUNT_THROTTLE, { ratePerSecond: API.throttleRatePerSecond, burst: API.throttleBurst }, loop.now());
    this.service = new VolumeService({
      store: this.store,
      clock: loop.clock,
      ...(context.sharedRateBudget ? { rateBudget: this.rateBudget } : {}),
      log: this.log,
    });
    this.queue = new SimulatedQueue(
      loop,
      random.fork(),
      {
        batchSize: EXECUTOR.batchSize,
        maxBatchingWindowSeconds: EXECUTOR.maxBatchingWindowSeconds,
        visibilityTimeoutSeconds: QUEUE.visibilityTimeoutSeconds,
        maxReceiveCount: QUEUE.maxReceiveCount,
        duplicateRate: context.duplicateRate,
        idlePollers: Math.min(5, EXECUTOR.maxConcurrency),
      },
      latencies.sqsRequest,
      this.executorFunction,
      (batch, context) => this.execute(batch, context.remainingTimeMs()),
    );
    this.stream = new StreamSimulator<WatcherChange>(
      loop,
      random.fork(),
      {
        shards: context.shards,
        batchSize: WATCHER.batchSize,
        maxBatchingWindowSeconds: WATCHER.maxBatchingWindowSeconds,
        retryAttempts: WATCHER.retryAttempts,
      },
      latencies.streamPropagation,
      this.watcherFunction,
      (batch) => this.watch(batch),
      (change) => change.id,
    );
    this.memoryStore.onChange((change) => {
      const record = change.newRecord ?? change.oldRecord;
      const item: WatcherChange = {
        id: String(change.sequenceNumber),
        eventName: change.eventName,
        key: change.key,
        oldRecord: change.oldRecord,
        newRecord: change.newRecord,
      };
      this.stream.publish(tableKey(change.key).pk, item);
      if (record) this.report(item);
    });
    this.clientRandom = random.fork();
  }

  functions(): SimulatedFunction[] {
    return [this.apiFunction, this.watcherFunction, this.executorFunction, this.reconcilerFunction];
  }

  reconcilerReport(): { passes: number; requeued: number } {
    return { passes: this.reconcilerPasses, requeued: this.reconcilerRequeued };
  }

  /**
   * Runs the reconciler on its schedule (every RECONCILER.intervalMinutes from the start), as the
   * deployed EventBridge rule does, until `stopped` says the run is over.
   */
  startSchedules(stopped: () => boolean): void {
    const { loop } = this.context;
    const reconciler = this.newReconciler();
    const tick = () => {
      if (stopped()) return;
      if (this.reconcilerFunction.hasCapacity()) {
        void this.reconcilerFunction.invoke(async () => {
          // As the deployed handler does, the pass is bounded by the function's timeout.
          const report = await reconciler.run({ remainingTimeMs: RECONCILER.timeoutSeconds * 1000 });
          this.reconcilerPasses++;
          this.reconcilerRequeued += report.requeued.length;
        });
      }
      loop.after(RECONCILER.intervalMinutes * 60_000, tick);
    };
    loop.after(RECONCILER.intervalMinutes * 60_000, tick);
  }

  apiGatewayRequests(): number {
    return this.apiRequests;
  }

  /** Client requests refused (429 by API Gateway's throttles, 500 for the API function throttled by Lambda), and the client's retries of them. */
  apiThrottling(): { apiGateway429: number; lambda500: number; clientRetries: number } {
    return { apiGateway429: this.apiGatewayThrottled, lambda500: this.apiLambdaThrottled, clientRetries: this.apiClientRetries };
  }

  private newReconciler(): Reconciler {
    return new Reconciler({
      store: this.store,
      queue: this.queue,
      provider: this.context.ec2,
      ...(this.context.sharedRateBudget ? { rateBudget: this.rateBudget } : {}),
      clock: this.context.loop.clock,
      metrics: this.metrics,
      log: this.log,
    });
  }

  /**
   * One reconciler pass as the schedule runs it when there is nothing to do: run once the
   * workload is over and the table is empty, in a function of its own so the run's figures are
   * not touched; its duration and DynamoDB units price the reconciler's standing cost.
   */
  async idleReconcilerPass(): Promise<IdlePass> {
    const fn = new SimulatedFunction(this.context.loop, 'reconciler-idle', RECONCILER.memoryMiB, 1, RECONCILER.timeoutSeconds * 1000);
    const reads = this.dynamodbReadUnits();
    const writes = this.dynamodbWriteUnits();
    await fn.invoke(() => this.newReconciler().run({ remainingTimeMs: RECONCILER.timeoutSeconds * 1000 }));
    return {
      billedMs: fn.billedMs,
      memoryMiB: RECONCILER.memoryMiB,
      dynamodbReadUnits: this.dynamodbReadUnits() - reads,
      dynamodbWriteUnits: this.dynamodbWriteUnits() - writes,
    };
  }

  /** Pollers the SQS event source mapping keeps long-polling the empty queue. */
  idlePollers(): number {
    return this.queue.idlePollers;
  }

  sqsRequests(): number {
    return this.queue.requests(this.context.loop.now() - this.startedAt);
  }

  dynamodbWriteUnits(): number {
    return this.store.writeUnits + this.rateBudget.writeUnits;
  }

  dynamodbReadUnits(): number {
    return this.store.readUnits + this.rateBudget.readUnits;
  }

  operationsFailedByThrottling(): number {
    return this.failedByThrottling;
  }

  /** POST /volumes with attachTo, through API Gateway and the API function's VolumeService. */
  async request(volume: VolumeRequest): Promise<void> {
    await this.callApi('POST /volumes', () =>
      this.service.createVolume({
        volumeId: volume.id,
        spec: { sizeGiB: volume.sizeGiB, volumeType: 'gp3', availabilityZone: volume.availabilityZone },
        attachTo: { instanceId: volume.instanceId },
      }),
    );
  }

  /** DELETE /volumes/{id}: the volume becomes dying; the engine detaches, then deletes. */
  async release(id: string): Promise<void> {
    await this.callApi('DELETE /volumes/{id}', () => this.service.deleteVolume(id));
  }

  /**
   * One client call of `method` through API Gateway, retried until it is taken
   * (`BULK_CLIENT_BASE_DELAY_MS`): the account's throttle and then the stage's for that method
   * (`API.throttleRatePerSecond`, `API.throttleBurst`, as the stack deploys them, a bucket per
   * method) answer 429 without reaching the integration; a request they pass on is
   * billed, and when the API function has no unreserved concurrency left Lambda throttles the
   * invocation and API Gateway answers 500.
   */
  private async callApi(method: string, handler: () => Promise<unknown>): Promise<void> {
    const { loop } = this.context;
    for (let attempt = 0; ; attempt++) {
      if (attempt > 0) {
        this.apiClientRetries++;
        await loop.clock.sleep(retryDelayMs(attempt - 1, BULK_CLIENT_BASE_DELAY_MS, this.clientRandom));
      }
      const now = loop.now();
      if (!this.apiThrottles.admit(method, now)) {
        this.apiGatewayThrottled++;
        continue;
      }
      this.apiRequests++;
      if (this.apiFunction.running + this.watcherFunction.running >= UNRESERVED_CONCURRENCY) {
        this.apiLambdaThrottled++;
        continue;
      }
      await this.apiFunction.invoke(handler);
      return;
    }
  }

  /** As the deployed handler runs it: each message's receive count, and the time the invocation has left. */
  private async execute(batch: Delivery[], remainingTimeMs: number): Promise<{ failedMessageIds: string[] }> {
    const executor = this.idleExecutors.pop() ?? this.newExecutor();
    try {
      return await executor.run(batch, { remainingTimeMs });
    } finally {
      this.idleExecutors.push(executor);
    }
  }

  private async watch(batch: WatcherChange[]): Promise<{ failedIds: string[] }> {
    const watcher = this.idleWatchers.pop() ?? this.newWatcher();
    try {
      const result = await watcher.handle(batch);
      return { failedIds: result.failedChangeIds };
    } finally {
      this.idleWatchers.push(watcher);
    }
  }

  private newExecutor(): Executor {
    const { loop, random, ec2 } = this.context;
    const jitter = random.fork();
    return new Executor({
      store: this.store,
      queue: this.queue,
      provider: ec2,
      ...(this.context.sharedRateBudget ? { rateBudget: this.rateBudget } : {}),
      clock: loop.clock,
      metrics: this.metrics,
      log: this.log,
      random: () => jitter.next(),
      newOwnerId: () => `executor-${++this.owners}`,
    });
  }

  private newWatcher(): Watcher {
    const { loop, random } = this.context;
    const jitter = random.fork();
    return new Watcher({
      store: this.store,
      queue: this.queue,
      clock: loop.clock,
      metrics: this.metrics,
      log: this.log,
      random: () => jitter.next(),
    });
  }

  /** What a client polling GET /volumes/{id} would see. */
  private report(change: WatcherChange): void {
    const { observer } = this.context;
    const record = change.newRecord;
    if (change.eventName === 'REMOVE') {
      if (change.oldRecord?.kind === 'volume') observer.finished(change.oldRecord.volumeId);
      return;
    }
    if (!record || record.status.state === change.oldRecord?.status.state) return;
    if (record.kind === 'attachment' && record.status.state === 'attached') observer.attached(record.volumeId);
    if (record.status.state === 'error') {
      if (record.status.code === 'RequestLimitExceeded') this.failedByThrottling++;
      observer.failed(record.volumeId, `${record.kind} ${record.status.code ?? ''}: ${record.status.message ?? ''}`);
    }
  }
}
