/**
 * The fixed cost at rest counts the idle pollers it is given (BENCHMARKS.md: the SQS mapping's
 * pollers, one empty receive per 20 s each), and the table's note names that number.
 */
import { describe, expect, it } from 'vitest';
import { formatTable } from '../../bench/report.js';
import { standingCostPerMonth } from '../../bench/standing.js';
import { designResult } from './design-result-fixture.js';

const PASS = { billedMs: 263, memoryMiB: 512, dynamodbReadUnits: 6, dynamodbWriteUnits: 0 };

describe('the idle pollers of the fixed cost at rest', () => {
  it('reports and prints three pollers as three, with 129 600 empty receives each in a 30-day month', () => {
    const standing = standingCostPerMonth(PASS, 3);
    expect(standing.idlePollers).toBe(3);
    expect(standing.sqsIdleReceivesPerMonth).toBe(3 * 129_600);
    const table = formatTable([designResult({ volumes: 100, standingCostPerMonth: standing })]);
    expect(table).toContain('SQS 3 pollers × 20 s long polls = 388800 empty receives = ');
  });

  it('reports no pollers as none, at no SQS cost', () => {
    const standing = standingCostPerMonth(PASS, 0);
    expect(standing).toMatchObject({ idlePollers: 0, sqsIdleReceivesPerMonth: 0, sqs: 0 });
    expect(standing.total).toBe(standing.reconciler);
  });
});
