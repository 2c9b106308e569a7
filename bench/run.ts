/**
 * One simulated run: a workload against one design, on simulated AWS, in virtual time.
 */
import type { VolumeProvider } from '../lib/engine/ports.js';
import { lowerBound } from './bound.js';
import type { EbsTimes, SimulatedEbs } from './sim/ebs.js';
import { createSimulatedEbs } from './sim/ebs.js';
import { ADAPTER_DESCRIBES, SDK_WAITER_DESCRIBES, SimulatedEc2 } from './sim/ec2.js';
import { EventLoop } from './sim/event-loop.js';
import type { SimulatedFunction } from './sim/lambda.js';
import { DEFAULT_LATENCIES, type LatencyModel } from './sim/latency.js';
import { costOf, type LambdaArchitecture } from './sim/pricing.js';
import { standingCostPerMonth, type IdlePass } from './standing.js';
import { Random } from './sim/random.js';
import { NaiveDesign } from './naive/design.js';
import { ProvisionerDesign } from './provisioner.js';
import {
  TIMELINE_STATES,
  percentile,
  type DesignResult,
  type TimelineSample,
  type TimelineState,
} from './report.js';
import {
  WorkloadDriver,
  instancesFor,
  requestsFor,
  type DesignUnderTest,
  type LifecycleObserver,
  type LifecycleTimes,
  type WorkloadSpec,
} from './workload.js';

export type DesignName = 'provisioner' | 'naive';

/** What a design exposes to be measured. */
export interface MeasuredDesign extends DesignUnderTest {
  functions(): SimulatedFunction[];
  /** What its functions run on, as deployed (the duration price depends on it). */
  readonly lambdaArchitecture: LambdaArchitecture;
  sqsRequests(): number;
  /** REST API requests through API Gateway (0 for a design whose client writes the table itself). */
  apiGatewayRequests?(): number;
  /** Client calls refused by API Gateway's throttle (429) or for the API function throttled by Lambda (500). */
  apiThrottling?(): { apiGateway429: number; lambda500: number; clientRetries: number };
  dynamodbWriteUnits(): number;
  dynamodbReadUnits(): number;
  /** Lifecycles that ended in an error caused by throttling. */
  operationsFailedByThrottling(): number;
  /** Attempts its SDK sent again, and the throttling errors it was answered (a design whose calls go through the SDK's retries). */
  sdkRetryCounts?(): { retries: number; throttlingErrors: number };
  /** Starts what runs on a schedule (the provisioner's reconciler) until `stopped` says the run is over. */
  startSchedules?(stopped: () => boolean): void;
  /** One reconciler pass on the emptied table, measured after the run (the standing cost). */
  idleReconcilerPass?(): Promise<IdlePass>;
  idlePollers?(): number;
  /** The reconciler's passes so far and the records they re-enqueued. */
  reconcilerReport?(): { passes: number; requeued: number };
}

export interface DesignContext {
  loop: EventLoop;
  random: Random;
  ec2: VolumeProvider;
  latencies: LatencyModel;
  observer: LifecycleObserver;
  /** DynamoDB stream shards. */
  shards: number;
  /** Share of SQS deliveries that are delivered a second time. */
  duplicateRate: number;
  /** The provisioner's executors spend one shared EC2 rate budget (else each its own share). */
  sharedRateBudget: boolean;
  instances: ReturnType<typeof instancesFor>;
}

export interface RunOptions {
  design: DesignName;
  workload: WorkloadSpec;
  seed: number;
  shards?: number;
  duplicateRate?: number;
  /** Default true: the provisioner's executors share one EC2 rate budget, as deployed. */
  sharedRateBudget?: boolean;
  latencies?: LatencyModel;
  /** Stop after this much virtual time even if lifecycles are open. Default 48 hours. */
  maxVirtualMs?: number;
}

/** After the last lifecycle ends, how long the run goes on before leaks are counted (deletes in flight finish). */
const SETTLE_MS = 60_000;

/** Runs one design through one workload in virtual time and measures it: calls, throttling, makespan, overhead, usage and cost. */
export async function runDesign(options: RunOptions): Promise<DesignResult> {
  const wallStarted = performance.now();
  const latencies = options.latencies ?? DEFAULT_LATENCIES;
  const random = new Random(options.seed);
  const loop = new EventLoop();
  const spec = options.workload;
  const instances = instancesFor(spec.volumes);
  const requests = requestsFor(spec.volumes, instances);
  const ebs: SimulatedEbs = createSimulatedEbs(loop, random.fork(), latencies, instances);
  // Each design's describes as its client sends them: the project's adapter by filter, the naive design's SDK waiters by id.
  const describes = options.design === 'naive' ? SDK_WAITER_DESCRIBES : ADAPTER_DESCRIBES;
  const ec2 = new SimulatedEc2(loop, random.fork(), ebs.provider, latencies.ec2Request, describes);
  const driver = new WorkloadDriver(loop, spec, requests);
  const context: DesignContext = {
    loop,
    random: random.fork(),
    ec2,
    latencies,
    observer: driver,
    shards: options.shards ?? 4,
    duplicateRate: options.duplicateRate ?? 0.01,
    sharedRateBudget: options.sharedRateBudget ?? true,
    instances,
  };
  const design: MeasuredDesign = options.design === 'naive' ? new NaiveDesign(context) : new ProvisionerDesign(context);
  driver.attach(design);

  const bound = lowerBound(spec.volumes, spec.arrival, spec.holdMs, latencies);
  const sampleEveryMs = Math.max(1000, Math.round(bound.ms / 400 / 1000) * 1000);
  const timeline: TimelineSample[] = [];
  const sample = () => {
    timeline.push({ atMs: loop.now() - driver.startedAt, counts: countStates(driver, ec2, ebs) });
  };
  let sampling = true;
  const tick = () => {
    if (!sampling) return;
    sample();
    loop.after(sampleEveryMs, tick);
  };

  let finished = false;
  driver.start();
  design.startSchedules?.(() => finished);
  tick();
  const maxVirtualMs = options.maxVirtualMs ?? 48 * 3600_000;
  await loop.run({ done: () => driver.done(), untilMs: driver.startedAt + maxVirtualMs });
  sample();
  sampling = false;
  finished = true;
  const settleUntil = loop.now() + SETTLE_MS;
  loop.at(settleUntil, () => undefined);
  await loop.run({ untilMs: settleUntil });

  const lifecycles = [...driver.lifecycles.values()];
  const converged = lifecycles.filter((l) => l.finishedAt !== undefined).length;
  const failures = lifecycles.filter((l) => l.failure !== undefined);
  const overheads = [...driver.lifecycles.entries()]
    .filter(([, l]) => l.attachedAt !== undefined)
    .map(([id, l]) => l.attachedAt! - l.requestedAt - ebsTimeOf(id, ec2, ebs.times))
    .sort((a, b) => a - b);
  const allVolumes = await ebs.provider.describeVolumes(ebs.createdIds());
  const leaked = allVolumes.filter((v) => v.state !== 'deleted').length;
  const duplicates = [...ec2.volumesByLifecycle.values()].reduce((sum, set) => sum + Math.max(0, set.size - 1), 0);
  const functions = design.functions().map((fn) => ({
    name: fn.name,
    memoryMiB: fn.memoryMiB,
    invocations: fn.invocations,
    gbSeconds: fn.gbSeconds,
    peakConcurrency: fn.peakConcurrency,
    overTimeout: fn.overTimeout,
  }));
  const lambdaInvocations = functions.reduce((sum, fn) => sum + fn.invocations, 0);
  const lambdaGbSeconds = functions.reduce((sum, fn) => sum + fn.gbSeconds, 0);
  const usage = {
    lambdaArchitecture: design.lambdaArchitecture,
    apiGatewayRequests: design.apiGatewayRequests?.() ?? 0,
    lambdaInvocations,
    lambdaGbSeconds,
    sqsRequests: design.sqsRequests(),
    dynamodbWriteUnits: design.dynamodbWriteUnits(),
    dynamodbReadUnits: design.dynamodbReadUnits(),
  };
  const cost = costOf(usage);
  const makespanMs = driver.lastFinishedAt - driver.startedAt;
  const wallMs = performance.now() - wallStarted;
  // Measured after every figure above is taken, so it adds nothing to them.
  let standing: DesignResult['standingCostPerMonth'];
  if (design.idleReconcilerPass) {
    let pass: IdlePass | undefined;
    void design.idleReconcilerPass().then((measured) => (pass = measured));
    await loop.run({ done: () => pass !== undefined });
    if (pass) standing = standingCostPerMonth(pass, design.idlePollers?.() ?? 0);
  }
  return {
    design: design.name,
    workload: spec.name,
    volumes: spec.volumes,
    instances: instances.length,
    seed: options.seed,
    converged,
    failed: failures.length,
    failureReasons: firstFailureReasons(failures),
    unfinished: spec.volumes - converged - failures.length,
    leakedVolumes: leaked,
    duplicateVolumes: duplicates,
    doubleAttaches: ec2.doubleAttaches,
    ec2Calls: { ...ec2.calls },
    ec2CallsTotal: ec2.totalCalls,
    ec2CallsPerLifecycle: ec2.totalCalls / spec.volumes,
    requestLimitExceeded: ec2.totalThrottled,
    makespanMs,
    lowerBound: bound,
    makespanToBound: makespanMs / bound.ms,
    overheadP50Ms: percentile(overheads, 0.5),
    overheadP99Ms: percentile(overheads, 0.99),
    functions,
    ...usage,
    cost,
    // Per lifecycle requested: what the run cost, whatever became of each lifecycle.
    costPer1000Requested: (cost.total / spec.volumes) * 1000,
    // Per lifecycle that finished: what a design spends on lifecycles it gave up on is part of the price.
    costPer1000Converged: converged > 0 ? (cost.total / converged) * 1000 : Number.POSITIVE_INFINITY,
    operationsFailedByThrottling: design.operationsFailedByThrottling(),
    ...(design.sdkRetryCounts ? { sdkRetries: design.sdkRetryCounts() } : {}),
    ...(design.apiThrottling ? { apiThrottling: design.apiThrottling() } : {}),
    ...(design.reconcilerReport ? { reconciler: design.reconcilerReport() } : {}),
    ...(standing ? { standingCostPerMonth: standing } : {}),
    timeline,
    virtualEvents: loop.eventsFired,
    wallMs,
  };
}

/**
 * The first five distinct reasons lifecycles failed for, in the order they failed (lifecycles that
 * failed at the same instant in the order they were requested).
 */
export function firstFailureReasons(lifecycles: Iterable<LifecycleTimes>): string[] {
  const failed = [...lifecycles].filter((l) => l.failure !== undefined);
  failed.sort((a, b) => (a.failedAt ?? 0) - (b.failedAt ?? 0));
  return [...new Set(failed.map((l) => l.failure!))].slice(0, 5);
}

/** EBS's own time for a lifecycle: create → available plus attach → attached of the volume it got attached. */
function ebsTimeOf(id: string, ec2: SimulatedEc2, times: Map<string, EbsTimes>): number {
  let best = 0;
  for (const ebsVolumeId of ec2.volumesByLifecycle.get(id) ?? []) {
    const t = times.get(ebsVolumeId);
    if (t?.attachMs !== undefined) best = (t.createMs ?? 0) + t.attachMs;
  }
  return best;
}

function countStates(driver: WorkloadDriver, ec2: SimulatedEc2, ebs: SimulatedEbs): Record<TimelineState, number> {
  const counts = Object.fromEntries(TIMELINE_STATES.map((s) => [s, 0])) as Record<TimelineState, number>;
  counts.failed = driver.failedCount;
  counts.finished = driver.finishedCount;
  // A lifecycle under way is where EC2 holds the latest volume it made.
  const latestVolume = ec2.latestVolumeByLifecycle;
  for (const id of driver.underWay) {
    const latest = latestVolume.get(id);
    const state = latest === undefined ? undefined : ebs.model.volumeState(latest);
    if (state === undefined) counts.waiting++;
    else if (state === 'creating') counts.creating++;
    else if (state === 'available') counts.available++;
    else if (state === 'in-use') counts['in-use']++;
    else counts.deleting++;
  }
  counts.waiting += Math.max(0, driver.planned - driver.lifecycles.size);
  return counts;
}
