/**
 * Settings a deployed function reads from its environment, checked once at start-up so a
 * misconfigured function fails loudly on its first invocation instead of half-working.
 */
import { DEFAULT_ENGINE_CONFIG, EC2_REQUEST_BUCKETS, RATE_BUCKETS, environmentRateBudgets, type EngineConfig, type RateBucket, type RateBudget } from '../engine/config.js';
import { MAX_SCAN_SEGMENTS } from '../engine/ports.js';

export interface FunctionEnvironment {
  tableName: string;
  queueUrl: string;
  ownerTagValue: string;
  /** CloudWatch namespace of the function's metrics, the deployment's own: the alarms read it. */
  metricsNamespace: string;
  /** The shared EC2 rate budget's table (the executor takes from it, the reconciler reads it); unset: each executor environment spends its own share. */
  rateBudgetTableName?: string;
  engineConfig: Partial<EngineConfig>;
}

function required(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

function positive(env: NodeJS.ProcessEnv, name: string): number | undefined {
  if (!env[name]) return undefined;
  const value = Number(env[name]);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got ${env[name]}`);
  return value;
}

function positiveInteger(env: NodeJS.ProcessEnv, name: string): number | undefined {
  if (!env[name]) return undefined;
  const value = Number(env[name]);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer, got ${env[name]}`);
  return value;
}

/**
 * `buckets` at the pace EC2 refills them in this account, when AWS raised it: `refillPerSecond`
 * for the CreateVolume, DeleteVolume and mutating-action buckets; CreateTags refills at its own (10 a second).
 */
function atRefill(buckets: Readonly<Record<RateBucket, RateBudget>>, refillPerSecond: number): Record<RateBucket, RateBudget> {
  const raised = Object.entries(buckets).map(([bucket, budget]) => [bucket, bucket === 'CreateTags' ? budget : { ...budget, ratePerSecond: refillPerSecond }]);
  return Object.fromEntries(raised) as Record<RateBucket, RateBudget>;
}

/**
 * Reads TABLE_NAME, QUEUE_URL, OWNER_TAG_VALUE, POWERTOOLS_METRICS_NAMESPACE (the deployment's
 * metrics namespace, given to the metrics explicitly) and the optional RATE_BUDGET_TABLE_NAME,
 * EC2_REFILL_PER_SECOND (the pace of EC2's buckets), EXECUTOR_MAX_CONCURRENCY (executor
 * environments that may run at once), EC2_RATE_BUDGET and RECONCILER_SCAN_SEGMENTS (the
 * reconciler's table segments, `reconcilerScanSegments`). A variable set to the empty string is
 * not set: a required one is refused, an optional one left to its default.
 *
 * Each executor environment's own budget (`rateBudgets`, spent when the shared budget is unset or
 * unreachable): with EC2_RATE_BUDGET, that many mutating calls per second for each of EC2's buckets; else,
 * when the concurrency or the refill is set, an equal share of EC2's buckets for that many
 * environments (`environmentRateBudgets`); else the engine's defaults, the same shares for
 * EXECUTOR.maxConcurrency environments at EC2's standard pace.
 */
export function readFunctionEnvironment(env: NodeJS.ProcessEnv = process.env): FunctionEnvironment {
  const ownerTagValue = required(env, 'OWNER_TAG_VALUE');
  const engineConfig: Partial<EngineConfig> = { ownerTagValue };
  const environments = positiveInteger(env, 'EXECUTOR_MAX_CONCURRENCY');
  if (environments !== undefined) engineConfig.concurrentEnvironments = environments;
  const ratePerSecond = positive(env, 'EC2_RATE_BUDGET');
  const refillPerSecond = positive(env, 'EC2_REFILL_PER_SECOND');
  if (ratePerSecond !== undefined) {
    engineConfig.rateBudgets = Object.fromEntries(
      RATE_BUCKETS.map((bucket) => [bucket, { ratePerSecond, burst: Math.max(1, Math.ceil(ratePerSecond * 4)) }]),
    ) as EngineConfig['rateBudgets'];
  } else if (environments !== undefined || refillPerSecond !== undefined) {
    const buckets = refillPerSecond === undefined ? EC2_REQUEST_BUCKETS : atRefill(EC2_REQUEST_BUCKETS, refillPerSecond);
    engineConfig.rateBudgets = environmentRateBudgets(environments ?? DEFAULT_ENGINE_CONFIG.concurrentEnvironments, buckets);
  }
  const scanSegments = positiveInteger(env, 'RECONCILER_SCAN_SEGMENTS');
  if (scanSegments !== undefined && scanSegments > MAX_SCAN_SEGMENTS) {
    throw new Error(`RECONCILER_SCAN_SEGMENTS must be at most ${MAX_SCAN_SEGMENTS} (DynamoDB's limit), got ${scanSegments}`);
  }
  if (scanSegments !== undefined) engineConfig.reconcilerScanSegments = scanSegments;
  const { rateBudgetTableName, accountRateBudgets } = readRateBudgetEnvironment(env);
  if (accountRateBudgets) engineConfig.accountRateBudgets = accountRateBudgets;
  const environment: FunctionEnvironment = {
    tableName: required(env, 'TABLE_NAME'),
    queueUrl: required(env, 'QUEUE_URL'),
    ownerTagValue,
    metricsNamespace: required(env, 'POWERTOOLS_METRICS_NAMESPACE'),
    engineConfig,
  };
  if (rateBudgetTableName) environment.rateBudgetTableName = rateBudgetTableName;
  return environment;
}

/**
 * The shared EC2 rate budget's settings alone (the API reads the budget, never takes from it):
 * RATE_BUDGET_TABLE_NAME, and EC2_REFILL_PER_SECOND for EC2's bucket pace when AWS raised it.
 */
export function readRateBudgetEnvironment(env: NodeJS.ProcessEnv = process.env): {
  rateBudgetTableName?: string;
  accountRateBudgets?: EngineConfig['accountRateBudgets'];
} {
  const settings: ReturnType<typeof readRateBudgetEnvironment> = {};
  if (env.RATE_BUDGET_TABLE_NAME) settings.rateBudgetTableName = env.RATE_BUDGET_TABLE_NAME;
  const refill = positive(env, 'EC2_REFILL_PER_SECOND');
  if (refill !== undefined) settings.accountRateBudgets = atRefill(DEFAULT_ENGINE_CONFIG.accountRateBudgets, refill);
  return settings;
}
