/**
 * The fixed cost per month at rest, as BENCHMARKS.md prices it: the reconciler invoked every
 * RECONCILER.intervalMinutes (8 640 times in a 30-day month), each pass at its measured duration
 * and memory on Arm ($0.0000133334 per GB-s, $0.20 per million requests) with its DynamoDB units
 * ($0.125 per million read units, $0.625 per million write units); and the SQS mapping's pollers,
 * one empty receive per 20 s each ($0.40 per million requests).
 */
import { describe, expect, it } from 'vitest';
import { formatTable } from '../../bench/report.js';
import { MONTH_MS, standingCostPerMonth } from '../../bench/standing.js';
import { RECONCILER } from '../../lib/settings.js';
import { designResult } from './design-result-fixture.js';

const ARM_PER_GB_SECOND = 0.0000133334;
const LAMBDA_PER_REQUEST = 0.2 / 1e6;
const READ_UNIT = 0.125 / 1e6;
const WRITE_UNIT = 0.625 / 1e6;
const SQS_PER_REQUEST = 0.4 / 1e6;

describe('fixed cost per month at rest', () => {
  it('invokes the reconciler 8 640 times in a 30-day month and polls 648 000 empty receives with 5 pollers', () => {
    expect(MONTH_MS).toBe(30 * 24 * 3600 * 1000);
    expect(RECONCILER.intervalMinutes).toBe(5);
    const cost = standingCostPerMonth({ billedMs: 263, memoryMiB: 512, dynamodbReadUnits: 6, dynamodbWriteUnits: 0 }, 5);
    expect(cost.reconcilerInvocationsPerMonth).toBe(8640);
    expect(cost.sqsIdleReceivesPerMonth).toBe(648_000);
    expect(cost.idlePollers).toBe(5);
    expect(cost.sqsIdleReceivesPerMonth / 5).toBe(MONTH_MS / 20_000);
  });

  it('prices each pass at its request, its GB-seconds on Arm and its read and write units, and the receives at the SQS request price', () => {
    const pass = { billedMs: 400, memoryMiB: 1024, dynamodbReadUnits: 10, dynamodbWriteUnits: 2 };
    const cost = standingCostPerMonth(pass, 3);
    const perPass = LAMBDA_PER_REQUEST + 1 * 0.4 * ARM_PER_GB_SECOND + 10 * READ_UNIT + 2 * WRITE_UNIT;
    expect(cost.reconcilerPass).toEqual(pass);
    expect(cost.reconciler).toBeCloseTo(8640 * perPass, 12);
    expect(cost.sqs).toBeCloseTo(3 * 129_600 * SQS_PER_REQUEST, 12);
    expect(cost.total).toBeCloseTo(cost.reconciler + cost.sqs, 12);
  });

  it('takes a MiB as 1/1024 of a GB, as Lambda bills memory', () => {
    const cost = standingCostPerMonth({ billedMs: 1000, memoryMiB: 512, dynamodbReadUnits: 0, dynamodbWriteUnits: 0 }, 0);
    expect(cost.reconciler).toBeCloseTo(8640 * (LAMBDA_PER_REQUEST + 0.5 * ARM_PER_GB_SECOND), 12);
    expect(cost.sqs).toBe(0);
  });

  it('prints the figures BENCHMARKS.md gives for a 263 ms pass at 512 MiB with 6 read units and 5 pollers', () => {
    const standing = standingCostPerMonth({ billedMs: 263, memoryMiB: 512, dynamodbReadUnits: 6, dynamodbWriteUnits: 0 }, 5);
    const table = formatTable([designResult({ volumes: 100, standingCostPerMonth: standing })]);
    expect(table).toContain('| fixed cost per month at rest (not in the above) | $0.2826 |');
    expect(table.split('\n')).toContain(
      'Fixed cost per month (provisioner): reconciler 8640 passes × (263 ms at 512 MiB, 6 read / 0 write units, as measured on the empty table) = $0.0234; ' +
        'SQS 5 pollers × 20 s long polls = 648000 empty receives = $0.2592; total $0.2826.',
    );
  });
});
