/**
 * Results of one run: the figures per design and workload, a Markdown table, JSON, and an SVG
 * chart of volumes by state over virtual time (hand-written SVG, no dependency).
 */
import type { LowerBound } from './bound.js';
import type { CostBreakdown, LambdaArchitecture } from './sim/pricing.js';
import type { StandingCost } from './standing.js';
import { EC2_ACTIONS, type Ec2Action } from './sim/token-bucket.js';

/** What the chart shows for each volume lifecycle at a point in time. */
export const TIMELINE_STATES = ['waiting', 'creating', 'available', 'in-use', 'deleting', 'finished', 'failed'] as const;
export type TimelineState = (typeof TIMELINE_STATES)[number];

export interface TimelineSample {
  atMs: number;
  counts: Record<TimelineState, number>;
}

export interface FunctionUsage {
  name: string;
  memoryMiB: number;
  invocations: number;
  gbSeconds: number;
  peakConcurrency: number;
  /** Invocations that ran past the function's timeout (Lambda would have stopped them). */
  overTimeout: number;
}

export interface DesignResult {
  design: string;
  workload: string;
  volumes: number;
  instances: number;
  seed: number;
  /** Lifecycles that finished (volume detached, deleted, records removed). */
  converged: number;
  /** Lifecycles a design gave up on. */
  failed: number;
  /** The first five distinct reasons lifecycles failed for, in the order they failed. */
  failureReasons: string[];
  /** Lifecycles still open when the run stopped. */
  unfinished: number;
  /** EBS volumes left behind (not deleted) at the end. */
  leakedVolumes: number;
  /** EBS volumes created beyond one per lifecycle. */
  duplicateVolumes: number;
  /** Times one volume was attached to two instances, or one device of an instance held two volumes. */
  doubleAttaches: number;
  ec2Calls: Record<Ec2Action, number>;
  ec2CallsTotal: number;
  ec2CallsPerLifecycle: number;
  requestLimitExceeded: number;
  makespanMs: number;
  lowerBound: LowerBound;
  makespanToBound: number;
  /** Request → attached as the client sees it, minus the EBS create and attach times of that volume. */
  overheadP50Ms: number;
  overheadP99Ms: number;
  functions: FunctionUsage[];
  /** The functions' processor, which sets the price of their duration. */
  lambdaArchitecture: LambdaArchitecture;
  /** REST API requests through API Gateway (the provisioner's POST and DELETE per lifecycle). */
  apiGatewayRequests: number;
  lambdaInvocations: number;
  lambdaGbSeconds: number;
  sqsRequests: number;
  dynamodbWriteUnits: number;
  dynamodbReadUnits: number;
  cost: CostBreakdown;
  /** The run's cost per 1000 lifecycles requested (N), converged or not: what the targets judge. */
  costPer1000Requested: number;
  /** The run's cost per 1000 lifecycles that converged (infinite when none did). */
  costPer1000Converged: number;
  /** Lifecycles that ended in an error caused by EC2 throttling (the engine's RequestLimitExceeded status; the naive design's error messages naming RequestLimitExceeded). */
  operationsFailedByThrottling: number;
  /**
   * The naive design's SDK: attempts it sent again after an error it retries (the simulated EC2's
   * only such error is RequestLimitExceeded), and the throttling errors it was answered. Absent for
   * the provisioner, whose SDK does not retry a throttled mutating call: the call goes back to its
   * record's backoff and is made again from a later message, which no count tells from a first call
   * (its simulated describes are not retried either; BENCHMARKS.md).
   */
  sdkRetries?: { retries: number; throttlingErrors: number };
  /** Client calls refused by API Gateway's throttle (429) or for the API function throttled by Lambda (500); absent for the naive design. */
  apiThrottling?: { apiGateway429: number; lambda500: number; clientRetries: number };
  /** The reconciler's scheduled passes and the records they re-enqueued (absent for the naive design). */
  reconciler?: { passes: number; requeued: number };
  /** Fixed cost a month at rest (reconciler schedule, SQS pollers), apart from the per-lifecycle cost. */
  standingCostPerMonth?: StandingCost;
  timeline: TimelineSample[];
  virtualEvents: number;
  wallMs: number;
}

/** The nearest-rank q-quantile of an ascending array (NaN when empty), for the overhead percentiles. */
export function percentile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

function seconds(ms: number): string {
  if (!Number.isFinite(ms)) return 'n/a';
  return ms >= 100_000 ? `${(ms / 1000).toFixed(0)} s` : `${(ms / 1000).toFixed(2)} s`;
}

function dollars(value: number): string {
  return value >= 0.01 ? `$${value.toFixed(4)}` : `$${value.toPrecision(3)}`;
}

/** A Markdown table comparing the designs of one workload, row per figure. */
export function formatTable(results: DesignResult[]): string {
  const first = results[0];
  if (!first) return '';
  const actions = EC2_ACTIONS.filter((action) => results.some((r) => r.ec2Calls[action] > 0));
  const rows: Array<[string, (r: DesignResult) => string]> = [
    ['lifecycles converged / failed / unfinished', (r) => `${r.converged} / ${r.failed} / ${r.unfinished}`],
    ['leaked / duplicate volumes, double attaches', (r) => `${r.leakedVolumes} / ${r.duplicateVolumes} / ${r.doubleAttaches}`],
    ['EC2 calls per lifecycle', (r) => r.ec2CallsPerLifecycle.toFixed(3)],
    ...actions.map((action): [string, (r: DesignResult) => string] => [
      `  ${action} per lifecycle`,
      (r) => (r.ec2Calls[action] / r.volumes).toFixed(3),
    ]),
    ['EC2 calls total', (r) => String(r.ec2CallsTotal)],
    ['RequestLimitExceeded', (r) => String(r.requestLimitExceeded)],
    ['operations failed by throttling', (r) => String(r.operationsFailedByThrottling)],
    ['SDK retries / throttling errors the SDK was answered', (r) => (r.sdkRetries ? `${r.sdkRetries.retries} / ${r.sdkRetries.throttlingErrors}` : '—')],
    ['makespan', (r) => seconds(r.makespanMs)],
    ['lower bound', (r) => seconds(r.lowerBound.ms)],
    ['makespan / bound', (r) => `${r.makespanToBound.toFixed(2)}×`],
    ['overhead p50 (request→attached − EBS time)', (r) => seconds(r.overheadP50Ms)],
    ['overhead p99', (r) => seconds(r.overheadP99Ms)],
    ['reconciler passes / records re-enqueued', (r) => (r.reconciler ? `${r.reconciler.passes} / ${r.reconciler.requeued}` : '—')],
    ['API Gateway requests', (r) => String(r.apiGatewayRequests)],
    ['API calls refused: 429 (API Gateway throttles) / 500 (API function throttled); the client retries them', (r) => (r.apiThrottling ? `${r.apiThrottling.apiGateway429} / ${r.apiThrottling.lambda500}` : '—')],
    ['Lambda invocations', (r) => String(r.lambdaInvocations)],
    ['Lambda GB-seconds', (r) => r.lambdaGbSeconds.toFixed(1)],
    ['SQS requests', (r) => String(r.sqsRequests)],
    ['DynamoDB write units', (r) => String(r.dynamodbWriteUnits)],
    ['DynamoDB read units', (r) => String(r.dynamodbReadUnits)],
    ['cost per 1000 requested lifecycles (us-east-1)', (r) => dollars(r.costPer1000Requested)],
    ['cost per 1000 converged lifecycles', (r) => (Number.isFinite(r.costPer1000Converged) ? dollars(r.costPer1000Converged) : 'n/a (none converged)')],
    ['fixed cost per month at rest (not in the above)', (r) => (r.standingCostPerMonth ? dollars(r.standingCostPerMonth.total) : '—')],
    ['simulated events / wall time', (r) => `${r.virtualEvents} / ${(r.wallMs / 1000).toFixed(1)} s`],
  ];
  const header = `| ${first.workload} (N = ${first.volumes}, M = ${first.instances} instances) | ${results.map((r) => r.design).join(' | ')} |`;
  const rule = `|---|${results.map(() => '---:').join('|')}|`;
  const body = rows.map(([name, cell]) => `| ${name} | ${results.map(cell).join(' | ')} |`);
  const bound = `Lower bound: ${first.lowerBound.derivation}.`;
  const standing = results.flatMap((r) => (r.standingCostPerMonth ? [`Fixed cost per month (${r.design}): ${standingText(r.standingCostPerMonth)}.`] : []));
  return [header, rule, ...body, '', bound, ...standing].join('\n');
}

function standingText(s: StandingCost): string {
  const pass = s.reconcilerPass;
  return (
    `reconciler ${s.reconcilerInvocationsPerMonth} passes × (${pass.billedMs} ms at ${pass.memoryMiB} MiB, ` +
    `${pass.dynamodbReadUnits} read / ${pass.dynamodbWriteUnits} write units, as measured on the empty table) = ${dollars(s.reconciler)}; ` +
    `SQS ${s.idlePollers} pollers × 20 s long polls = ${s.sqsIdleReceivesPerMonth} empty receives = ${dollars(s.sqs)}; total ${dollars(s.total)}`
  );
}

const STATE_COLOURS: Record<TimelineState, string> = {
  waiting: '#bdbdbd',
  creating: '#90caf9',
  available: '#1e88e5',
  'in-use': '#43a047',
  deleting: '#fb8c00',
  finished: '#e0e0e0',
  failed: '#e53935',
};

/** Stacked areas of lifecycles by state over virtual time, one panel per design. */
export function timelineSvg(title: string, results: DesignResult[]): string {
  const panelWidth = 560;
  const panelHeight = 240;
  const margin = { left: 56, right: 16, top: 40, bottom: 40 };
  // The legend runs from beside the design's name past the panel's right edge: the picture is
  // widened to hold its last name.
  const legendLeft = margin.left + 120;
  const legendStep = (state: TimelineState) => 13 + state.length * 6.5 + 10;
  const legendWidth = TIMELINE_STATES.reduce((sum, state) => sum + legendStep(state), 0) - 10;
  const width = Math.max(margin.left + panelWidth + margin.right, legendLeft + legendWidth + margin.right);
  const height = results.length * (panelHeight + margin.top + margin.bottom) + 40;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="${margin.left}" y="20" font-size="14" font-weight="bold">${escapeXml(title)}</text>`,
  ];
  results.forEach((result, index) => {
    const top = 30 + index * (panelHeight + margin.top + margin.bottom) + margin.top;
    const samples = result.timeline;
    const end = Math.max(1, samples[samples.length - 1]?.atMs ?? 1);
    const total = Math.max(1, result.volumes);
    const x = (atMs: number) => margin.left + (atMs / end) * panelWidth;
    const y = (count: number) => top + panelHeight - (count / total) * panelHeight;
    parts.push(`<text x="${margin.left}" y="${top - 8}" font-size="12" font-weight="bold">${escapeXml(result.design)}</text>`);
    const cumulative = samples.map(() => 0);
    for (const state of TIMELINE_STATES) {
      const lower = [...cumulative];
      samples.forEach((sample, i) => (cumulative[i]! += sample.counts[state]));
      if (samples.every((sample) => sample.counts[state] === 0)) continue;
      const upperPath = samples.map((sample, i) => `${x(sample.atMs).toFixed(1)},${y(cumulative[i]!).toFixed(1)}`);
      const lowerPath = samples.map((sample, i) => `${x(sample.atMs).toFixed(1)},${y(lower[i]!).toFixed(1)}`).reverse();
      parts.push(`<polygon fill="${STATE_COLOURS[state]}" stroke="none" points="${[...upperPath, ...lowerPath].join(' ')}"><title>${state}</title></polygon>`);
    }
    parts.push(`<rect x="${margin.left}" y="${top}" width="${panelWidth}" height="${panelHeight}" fill="none" stroke="#333"/>`);
    for (let tick = 0; tick <= 4; tick++) {
      const atMs = (end * tick) / 4;
      parts.push(`<text x="${x(atMs).toFixed(1)}" y="${top + panelHeight + 14}" text-anchor="middle">${(atMs / 1000).toFixed(0)} s</text>`);
      const count = Math.round((total * tick) / 4);
      parts.push(`<text x="${margin.left - 6}" y="${y(count).toFixed(1)}" text-anchor="end" dominant-baseline="middle">${count}</text>`);
    }
    parts.push(`<text x="${margin.left + panelWidth / 2}" y="${top + panelHeight + 30}" text-anchor="middle">virtual time</text>`);
    let legendX = legendLeft;
    for (const state of TIMELINE_STATES) {
      parts.push(`<rect x="${legendX}" y="${top - 18}" width="10" height="10" fill="${STATE_COLOURS[state]}"/>`);
      parts.push(`<text x="${legendX + 13}" y="${top - 9}">${state}</text>`);
      legendX += legendStep(state);
    }
  });
  parts.push('</svg>');
  return parts.join('\n');
}

function escapeXml(text: string): string {
  return text.replace(/[<>&"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c]!);
}
