/**
 * Settings a deployed function reads from its environment, checked once at start-up so a
 * misconfigured function fails loudly on its first invocation instead of half-working.
 */
import type { EngineConfig, MutatingAction } from '../engine/config.js';

export interface FunctionEnvironment {
  tableName: string;
  queueUrl: string;
  ownerTagValue: string;
  /** The shared EC2 rate budget's table (executor only); unset: each environment spends its own share. */
  rateBudgetTableName?: string;
  engineConfig: Partial<EngineConfig>;
}

const MUTATING: MutatingAction[] = ['CreateVolume', 'AttachVolume', 'DetachVolume', 'DeleteVolume', 'ModifyVolume'];

function required(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

/**
 * Reads TABLE_NAME, QUEUE_URL, OWNER_TAG_VALUE, the optional RATE_BUDGET_TABLE_NAME and the optional
 * EC2_RATE_BUDGET (mutating calls per second per environment, when the shared budget is unset or unreachable).
 */
export function readFunctionEnvironment(env: NodeJS.ProcessEnv = process.env): FunctionEnvironment {
  const ownerTagValue = required(env, 'OWNER_TAG_VALUE');
  const engineConfig: Partial<EngineConfig> = { ownerTagValue };
  if (env.EC2_RATE_BUDGET) {
    const ratePerSecond = Number(env.EC2_RATE_BUDGET);
    if (!Number.isFinite(ratePerSecond) || ratePerSecond <= 0) throw new Error(`EC2_RATE_BUDGET must be a positive number, got ${env.EC2_RATE_BUDGET}`);
    engineConfig.rateBudgets = Object.fromEntries(
      MUTATING.map((action) => [action, { ratePerSecond, burst: Math.max(1, Math.ceil(ratePerSecond * 4)) }]),
    ) as EngineConfig['rateBudgets'];
  }
  const environment: FunctionEnvironment = { tableName: required(env, 'TABLE_NAME'), queueUrl: required(env, 'QUEUE_URL'), ownerTagValue, engineConfig };
  if (env.RATE_BUDGET_TABLE_NAME) environment.rateBudgetTableName = env.RATE_BUDGET_TABLE_NAME;
  return environment;
}
