/**
 * What the provisioner costs a month with nothing to do, apart from the per-lifecycle cost of a
 * run (short runs hold none of it): the reconciler invoked every RECONCILER.intervalMinutes by
 * its EventBridge schedule (scheduled rules cost nothing), each pass as measured on an empty
 * table at the end of the run, and the SQS event source mapping's pollers long-polling the empty
 * queue. DynamoDB on-demand tables, the stream read by Lambda and the API cost nothing at rest.
 */
import { RECONCILER } from '../lib/settings.js';
import { US_EAST_1_PRICES } from './sim/pricing.js';
import { LONG_POLL_MS } from './sim/sqs.js';

/** A 30-day month. */
export const MONTH_MS = 30 * 24 * 3600_000;

/** One reconciler pass on an empty table, as measured. */
export interface IdlePass {
  billedMs: number;
  memoryMiB: number;
  dynamodbReadUnits: number;
  dynamodbWriteUnits: number;
}

export interface StandingCost {
  reconcilerInvocationsPerMonth: number;
  reconcilerPass: IdlePass;
  /** Empty ReceiveMessage requests a month: each idle poller's long poll returns after 20 s. */
  sqsIdleReceivesPerMonth: number;
  idlePollers: number;
  reconciler: number;
  sqs: number;
  total: number;
}

/** The fixed monthly cost of the header from one measured idle reconciler pass and the mapping's idle pollers. */
export function standingCostPerMonth(pass: IdlePass, idlePollers: number): StandingCost {
  const p = US_EAST_1_PRICES;
  const invocations = MONTH_MS / (RECONCILER.intervalMinutes * 60_000);
  const perPass =
    p.lambdaPerRequest +
    ((pass.memoryMiB / 1024) * pass.billedMs / 1000) * p.lambdaArmPerGbSecond +
    pass.dynamodbReadUnits * p.dynamodbPerReadUnit +
    pass.dynamodbWriteUnits * p.dynamodbPerWriteUnit;
  const receives = (MONTH_MS / LONG_POLL_MS) * idlePollers;
  const reconciler = invocations * perPass;
  const sqs = receives * p.sqsPerRequest;
  return {
    reconcilerInvocationsPerMonth: invocations,
    reconcilerPass: pass,
    sqsIdleReceivesPerMonth: receives,
    idlePollers,
    reconciler,
    sqs,
    total: reconciler + sqs,
  };
}
