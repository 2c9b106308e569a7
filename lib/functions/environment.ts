/**
 * Settings a deployed function reads from its environment, checked once at start-up so a
 * misconfigured function fails loudly on its first invocation instead of half-working.
 */
import { DEFAULT_ENGINE_CONFIG, MUTATING_ACTIONS, type EngineConfig } from '../engine/config.js';

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

/**
 * Reads TABLE_NAME, QUEUE_URL, OWNER_TAG_VALUE, POWERTOOLS_METRICS_NAMESPACE (the deployment's
 * metrics namespace, given to the metrics explicitly) and the optional RATE_BUDGET_TABLE_NAME,
 * EC2_REFILL_PER_SECOND (the pace of EC2's buckets, for the shared budget) and EC2_RATE_BUDGET
 * (mutating calls per second per environment, when the shared budget is unset or unreachable).
 */
export function readFunctionEnvironment(env: NodeJS.ProcessEnv = process.env): FunctionEnvironment {
  const ownerTagValue = required(env, 'OWNER_TAG_VALUE');
  const engineConfig: Partial<EngineConfig> = { ownerTagValue };
  const ratePerSecond = positive(env, 'EC2_RATE_BUDGET');
  if (ratePerSecond !== undefined) {
    engineConfig.rateBudgets = Object.fromEntries(
      MUTATING_ACTIONS.map((action) => [action, { ratePerSecond, burst: Math.max(1, Math.ceil(ratePerSecond * 4)) }]),
    ) as EngineConfig['rateBudgets'];
  }
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
  if (refill !== undefined) {
    // The pace of the CreateVolume, DeleteVolume and mutating-action buckets; CreateTags refills at its own (10 a second).
    const buckets = Object.entries(DEFAULT_ENGINE_CONFIG.accountRateBudgets).map(([bucket, budget]) => [bucket, bucket === 'CreateTags' ? budget : { ...budget, ratePerSecond: refill }]);
    settings.accountRateBudgets = Object.fromEntries(buckets) as EngineConfig['accountRateBudgets'];
  }
  return settings;
}
