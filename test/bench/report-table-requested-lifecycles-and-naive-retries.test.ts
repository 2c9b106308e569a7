/**
 * The table's heading gives N, the lifecycles the workload requested, whatever became of them; and
 * the naive design's SDK row prints its counts even when there were none, as BENCHMARKS.md's steady
 * tables show (`0 / 0`), while the provisioner's shows —.
 */
import { describe, expect, it } from 'vitest';
import { formatTable } from '../../bench/report.js';
import { designResult } from './design-result-fixture.js';

describe('the results table', () => {
  it('heads the table with the lifecycles requested, not those that converged', () => {
    const naive = designResult({ design: 'naive', volumes: 1000, instances: 50, converged: 120, failed: 880 });
    const provisioner = designResult({ volumes: 1000, instances: 50, converged: 990, failed: 10 });
    for (const results of [[naive, provisioner], [provisioner, naive]]) {
      expect(formatTable(results).split('\n')[0]).toBe(`| burst (N = 1000, M = 50 instances) | ${results.map((r) => r.design).join(' | ')} |`);
    }
  });

  it("prints the naive design's SDK retries and throttling errors as 0 / 0 when there were none, and — for the provisioner", () => {
    const rows = formatTable([designResult({ workload: 'steady' }), designResult({ design: 'naive', workload: 'steady', sdkRetries: { retries: 0, throttlingErrors: 0 } })]).split('\n');
    expect(rows).toContain('| SDK retries / throttling errors the SDK was answered | — | 0 / 0 |');
  });
});
