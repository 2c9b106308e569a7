/**
 * The whole pipeline on one machine: the same handler cores the Lambda functions run, fed by
 * pollers that behave like Lambda's event source mappings, the reconciler on a timer and the HTTP
 * API on localhost. Two backends: `memory` (default; nothing but Node) and `moto` (real AWS wire
 * protocols against moto_server or the endpoint given).
 */
import { randomBytes } from 'node:crypto';
import { createApiHandler } from '../api/handler.js';
import { startApiServer, type RunningApiServer } from '../api/node-server.js';
import { resolveEngineConfig, type EngineConfig } from '../engine/config.js';
import type { Clock, Log, Metrics, OperationQueue, RecordStore, SharedRateBudget, VolumeProvider } from '../engine/ports.js';
import type { ReconcileReport } from '../engine/reconciler.js';
import { createExecutorHandler, createReconcilerPass, createWatcherHandler } from '../functions/handlers.js';
import { SystemClock } from '../memory/clock.js';
import { RecordingMetrics } from '../memory/metrics.js';
import { RECONCILER } from '../settings.js';
import { printingTransitions } from './console.js';
import { createMemoryBackend } from './memory-backend.js';
import { createMotoBackend, LOCAL_AVAILABILITY_ZONE } from './moto-backend.js';
import { QueuePoller, type QueueSource } from './queue-poller.js';
import { StreamPoller, type StreamSource } from './stream-poller.js';

export type Backend = 'memory' | 'moto';

export interface LocalRuntimeOptions {
  backend: Backend;
  /** HTTP port on 127.0.0.1; 0 picks a free one. */
  port: number;
  demoInstances: number;
  /** AWS endpoint for the moto backend instead of starting moto_server (e.g. LocalStack). */
  endpoint?: string;
  log: Log;
  /** Reconciler period; default RECONCILER.intervalMinutes. */
  reconcileEveryMs?: number;
  /** Overrides of the engine's defaults (tests shorten waits with it). */
  engineConfig?: Partial<EngineConfig>;
  /** How long work may be overdue before the reconciler re-enqueues it. */
  reconcilerOverdueAfterMs?: number;
  /** Poller idle wait between empty reads. */
  pollIdleMs?: number;
}

export interface LocalRuntime {
  backend: Backend;
  apiUrl: string;
  instanceIds: string[];
  store: RecordStore;
  provider: VolumeProvider;
  queue: OperationQueue;
  metrics: Metrics;
  streamPoller: StreamPoller;
  queuePoller: QueuePoller;
  /** The moto backend's endpoint, table and queue (undefined on the memory backend). */
  aws?: { endpoint: string; tableName: string; rateBudgetTableName: string; queueUrl: string; deadLetterQueueUrl: string };
  reconcileNow(): Promise<ReconcileReport>;
  /** Stops the API, then the pollers and the reconciler, then the backend; a further call waits for that same stop. */
  stop(): Promise<void>;
}

const OWNER_TAG_VALUE = 'ebs-provisioner-local';

function demoInstanceId(): string {
  return `i-${randomBytes(9).toString('hex').slice(0, 17)}`;
}

export async function startLocalRuntime(options: LocalRuntimeOptions): Promise<LocalRuntime> {
  const clock: Clock = new SystemClock();
  const log = options.log;
  const metrics = new RecordingMetrics();
  let store: RecordStore;
  let queue: OperationQueue;
  let provider: VolumeProvider;
  let rateBudget: SharedRateBudget | undefined;
  let stream: StreamSource;
  let messages: QueueSource;
  let instanceIds: string[];
  let stopBackend = async () => {};
  let aws: LocalRuntime['aws'];

  if (options.backend === 'memory') {
    const backend = createMemoryBackend({ clock, ownerTagValue: OWNER_TAG_VALUE });
    ({ store, queue, rateBudget, stream, messages } = backend);
    provider = backend.ebs;
    instanceIds = Array.from({ length: options.demoInstances }, demoInstanceId);
    for (const instanceId of instanceIds) backend.ebs.addInstance({ instanceId, availabilityZone: LOCAL_AVAILABILITY_ZONE });
  } else {
    const backend = await createMotoBackend({ ownerTagValue: OWNER_TAG_VALUE, ...(options.endpoint ? { endpoint: options.endpoint } : {}) });
    ({ store, queue, provider, rateBudget } = backend.adapters);
    ({ stream, messages } = backend);
    stopBackend = backend.stop;
    // A launch that fails must not leave the backend (and the moto_server it may have started) running.
    instanceIds = await backend.launchInstances(options.demoInstances).catch(async (error: unknown) => {
      await stopBackend();
      throw error;
    });
    aws = {
      endpoint: backend.endpoint,
      tableName: backend.tableName,
      rateBudgetTableName: backend.rateBudgetTableName,
      queueUrl: backend.queueUrl,
      deadLetterQueueUrl: backend.deadLetterQueueUrl,
    };
  }

  const config = { ownerTagValue: OWNER_TAG_VALUE, ...options.engineConfig };
  const deps = { store, queue, provider, clock, metrics, log, config };
  const watch = createWatcherHandler(deps);
  const streamPoller = new StreamPoller({
    source: stream,
    clock,
    log,
    idleMs: options.pollIdleMs ?? 200,
    handler: printingTransitions(watch, log),
  });
  const queuePoller = new QueuePoller({ source: messages, handler: createExecutorHandler({ ...deps, ...(rateBudget ? { rateBudget } : {}) }), clock, log, idleMs: options.pollIdleMs ?? 200 });
  const reconcilePass = createReconcilerPass({
    ...deps,
    ...(rateBudget ? { rateBudget } : {}),
    ...(options.reconcilerOverdueAfterMs !== undefined ? { overdueAfterMs: options.reconcilerOverdueAfterMs } : {}),
  });
  const reconcile = async () => (await reconcilePass()).report;

  let api: RunningApiServer;
  try {
    const { accountRateBudgets } = resolveEngineConfig(config);
    api = await startApiServer(createApiHandler({ store, clock, log, accountRateBudgets, ...(rateBudget ? { rateBudget } : {}) }), { port: options.port });
  } catch (error) {
    await stopBackend();
    throw error;
  }
  streamPoller.start();
  queuePoller.start();
  // One pass at a time, as the deployed function runs (its reserved concurrency is 1): a tick while
  // a pass is under way starts none, and the stop waits for that pass before the backend goes.
  let passUnderWay: Promise<void> | undefined;
  const timer = setInterval(() => {
    if (passUnderWay) {
      log.debug('reconciler pass still under way; this tick starts none');
      return;
    }
    passUnderWay = reconcile()
      .then(
        () => undefined,
        (error: unknown) => log.error('reconciler failed', { error: String(error) }),
      )
      .finally(() => {
        passUnderWay = undefined;
      });
  }, options.reconcileEveryMs ?? RECONCILER.intervalMinutes * 60_000);
  timer.unref();
  let stopping: Promise<void> | undefined;

  return {
    backend: options.backend,
    apiUrl: api.url,
    instanceIds,
    store,
    provider,
    queue,
    metrics,
    streamPoller,
    queuePoller,
    ...(aws ? { aws } : {}),
    reconcileNow: reconcile,
    stop() {
      // One stop: a further call (a second signal handler, a test's clean-up) waits for the same one.
      stopping ??= (async () => {
        clearInterval(timer);
        // The API first: no new request, and those under way finish (their writes stored; the watcher may not read the last before the pollers stop).
        try {
          await api.close();
        } finally {
          await Promise.all([streamPoller.stop(), queuePoller.stop(), passUnderWay]);
          await stopBackend();
        }
      })();
      return stopping;
    },
  };
}
