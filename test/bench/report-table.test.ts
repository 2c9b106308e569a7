/**
 * The table `npm run bench` prints for a workload, row by row as BENCHMARKS.md shows it, and the
 * nearest-rank percentiles its overhead rows give.
 */
import { describe, expect, it } from 'vitest';
import { formatTable, percentile, type DesignResult } from '../../bench/report.js';
import { standingCostPerMonth } from '../../bench/standing.js';
import { designResult } from './design-result-fixture.js';

/** The burst of 1000 of BENCHMARKS.md (seed 1), with the figures its table prints. */
function burstOf1000(): DesignResult[] {
  const calls = (create: number, remove: number, attach: number, detach: number, describeVolumes: number, describeInstances: number) => ({
    ...designResult().ec2Calls,
    CreateVolume: create,
    DeleteVolume: remove,
    AttachVolume: attach,
    DetachVolume: detach,
    DescribeVolumes: describeVolumes,
    DescribeInstances: describeInstances,
  });
  const bound = { ms: 390_002, derivation: 'mutating bucket (attach+detach): max(0.0 s last arrival, (2000 − 50) / 5/s = 390 s) + detach+delete 0.0 s', terms: [] };
  const provisioner = designResult({
    instances: 50,
    ec2Calls: calls(1000, 1000, 1000, 1000, 259, 11),
    ec2CallsTotal: 4270,
    ec2CallsPerLifecycle: 4.27,
    requestLimitExceeded: 0,
    operationsFailedByThrottling: 0,
    makespanMs: 412_300,
    lowerBound: bound,
    makespanToBound: 412_300 / 390_002,
    overheadP50Ms: 150_200,
    overheadP99Ms: 314_000,
    reconciler: { passes: 1, requeued: 0 },
    apiGatewayRequests: 2000,
    apiThrottling: { apiGateway429: 3596, lambda500: 0, clientRetries: 3596 },
    lambdaInvocations: 7691,
    lambdaGbSeconds: 665.8,
    sqsRequests: 7626,
    dynamodbWriteUnits: 27824,
    dynamodbReadUnits: 50244,
    costPer1000Requested: 0.0441,
    costPer1000Converged: 0.0441,
    standingCostPerMonth: standingCostPerMonth({ billedMs: 237, memoryMiB: 512, dynamodbReadUnits: 6, dynamodbWriteUnits: 0 }, 5),
    virtualEvents: 101_252,
    wallMs: 4300,
  });
  const naive = designResult({
    design: 'naive',
    instances: 50,
    converged: 120,
    failed: 880,
    unfinished: 0,
    ec2Calls: calls(2788, 120, 120, 120, 987, 0),
    ec2CallsTotal: 4135,
    ec2CallsPerLifecycle: 4.135,
    requestLimitExceeded: 3097,
    operationsFailedByThrottling: 880,
    sdkRetries: { retries: 2117, throttlingErrors: 3097 },
    makespanMs: 75_230,
    lowerBound: bound,
    makespanToBound: 75_230 / 390_002,
    overheadP50Ms: 28_900,
    overheadP99Ms: 45_550,
    apiGatewayRequests: 0,
    lambdaInvocations: 2651,
    lambdaGbSeconds: 859.6,
    sqsRequests: 0,
    dynamodbWriteUnits: 2240,
    dynamodbReadUnits: 0,
    costPer1000Requested: 0.0163,
    costPer1000Converged: 0.1355,
    virtualEvents: 17_237,
    wallMs: 200,
  });
  return [provisioner, naive];
}

describe('the results table', () => {
  it('prints the rows BENCHMARKS.md shows for the burst of 1000, in its order', () => {
    expect(formatTable(burstOf1000()).split('\n')).toEqual([
      '| burst (N = 1000, M = 50 instances) | provisioner | naive |',
      '|---|---:|---:|',
      '| lifecycles converged / failed / unfinished | 1000 / 0 / 0 | 120 / 880 / 0 |',
      '| leaked / duplicate volumes, double attaches | 0 / 0 / 0 | 0 / 0 / 0 |',
      '| EC2 calls per lifecycle | 4.270 | 4.135 |',
      '|   CreateVolume per lifecycle | 1.000 | 2.788 |',
      '|   DeleteVolume per lifecycle | 1.000 | 0.120 |',
      '|   AttachVolume per lifecycle | 1.000 | 0.120 |',
      '|   DetachVolume per lifecycle | 1.000 | 0.120 |',
      '|   DescribeVolumes per lifecycle | 0.259 | 0.987 |',
      '|   DescribeInstances per lifecycle | 0.011 | 0.000 |',
      '| EC2 calls total | 4270 | 4135 |',
      '| RequestLimitExceeded | 0 | 3097 |',
      '| operations failed by throttling | 0 | 880 |',
      '| SDK retries / throttling errors the SDK was answered | — | 2117 / 3097 |',
      '| makespan | 412 s | 75.23 s |',
      '| lower bound | 390 s | 390 s |',
      '| makespan / bound | 1.06× | 0.19× |',
      '| overhead p50 (request→attached − EBS time) | 150 s | 28.90 s |',
      '| overhead p99 | 314 s | 45.55 s |',
      '| reconciler passes / records re-enqueued | 1 / 0 | — |',
      '| API Gateway requests | 2000 | 0 |',
      '| API calls refused: 429 (API Gateway throttles) / 500 (API function throttled); the client retries them | 3596 / 0 | — |',
      '| Lambda invocations | 7691 | 2651 |',
      '| Lambda GB-seconds | 665.8 | 859.6 |',
      '| SQS requests | 7626 | 0 |',
      '| DynamoDB write units | 27824 | 2240 |',
      '| DynamoDB read units | 50244 | 0 |',
      '| cost per 1000 requested lifecycles (us-east-1) | $0.0441 | $0.0163 |',
      '| cost per 1000 converged lifecycles | $0.0441 | $0.1355 |',
      '| fixed cost per month at rest (not in the above) | $0.2811 | — |',
      '| simulated events / wall time | 101252 / 4.3 s | 17237 / 0.2 s |',
      '',
      'Lower bound: mutating bucket (attach+detach): max(0.0 s last arrival, (2000 − 50) / 5/s = 390 s) + detach+delete 0.0 s.',
      'Fixed cost per month (provisioner): reconciler 8640 passes × (237 ms at 512 MiB, 6 read / 0 write units, as measured on the empty table) = $0.0219; SQS 5 pollers × 20 s long polls = 648000 empty receives = $0.2592; total $0.2811.',
    ]);
  });

  it('gives a row to each EC2 action some design called, per lifecycle requested, and none to an action no design called', () => {
    const [provisioner, naive] = burstOf1000();
    // An action only the naive design called still gets its row, the provisioner's cell 0.000.
    naive!.ec2Calls.CreateTags = 50;
    const rows = formatTable([provisioner!, naive!]).split('\n');
    expect(rows).toContain('|   CreateTags per lifecycle | 0.000 | 0.050 |');
    for (const action of ['ModifyVolume', 'DeleteTags']) expect(rows.some((row) => row.includes(action))).toBe(false);
    // Per action, the rows add up to the run's EC2 calls per lifecycle (calls over N).
    const perAction = rows.filter((row) => row.startsWith('|   ')).map((row) => Number(row.split('|')[3]));
    expect(perAction.reduce((sum, x) => sum + x, 0)).toBeCloseTo(naive!.ec2CallsPerLifecycle + 0.05, 9);
  });

  it('prints what cannot be measured as n/a: the overhead when nothing was attached, the cost per converged lifecycle when none converged', () => {
    const none = designResult({ design: 'naive', converged: 0, failed: 1000, overheadP50Ms: Number.NaN, overheadP99Ms: Number.NaN, costPer1000Converged: Number.POSITIVE_INFINITY });
    const rows = formatTable([none]).split('\n');
    expect(rows).toContain('| overhead p50 (request→attached − EBS time) | n/a |');
    expect(rows).toContain('| overhead p99 | n/a |');
    expect(rows).toContain('| cost per 1000 converged lifecycles | n/a (none converged) |');
  });

  it('prints nothing for no results', () => {
    expect(formatTable([])).toBe('');
  });
});

describe('overhead percentiles', () => {
  const ascending = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

  it('takes the nearest rank: the ⌈q × n⌉-th smallest value', () => {
    expect(percentile(ascending(10), 0.5)).toBe(5);
    expect(percentile(ascending(10), 0.99)).toBe(10);
    expect(percentile(ascending(10), 0.91)).toBe(10);
    expect(percentile(ascending(10), 0.9)).toBe(9);
    expect(percentile(ascending(100), 0.99)).toBe(99);
    expect(percentile(ascending(100), 0.01)).toBe(1);
    expect(percentile(ascending(101), 0.5)).toBe(51);
  });

  it('gives the smallest value at q = 0, the largest at q = 1, and the only one of a single value', () => {
    expect(percentile(ascending(7), 0)).toBe(1);
    expect(percentile(ascending(7), 1)).toBe(7);
    expect(percentile([42], 0.5)).toBe(42);
    expect(percentile([42], 0.99)).toBe(42);
  });

  it('is NaN for no values', () => {
    expect(percentile([], 0.5)).toBeNaN();
  });
});
