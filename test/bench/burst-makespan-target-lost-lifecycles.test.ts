/**
 * The makespan target is the burst of 10 000's (BENCHMARKS.md: "Burst of 10 000: makespan ≤ 1.1×
 * bound"), and it holds only when every lifecycle converged (bench/bound.ts): a lifecycle that
 * failed did not converge, and a single one lost is named and misses the target.
 */
import { describe, expect, it } from 'vitest';
import type { DesignResult } from '../../bench/report.js';
import { checkTargets } from '../../bench/targets.js';
import { designResult } from './design-result-fixture.js';

const TARGET = 'burst N=10000: makespan ≤ 1.1× lower bound';

function makespanVerdicts(changes: Partial<DesignResult>) {
  return checkTargets([designResult(changes)]).filter((check) => check.target.includes('makespan'));
}

describe('the burst of 10 000 makespan target', () => {
  it('counts lifecycles that failed among those that did not converge', () => {
    expect(makespanVerdicts({ volumes: 10_000, converged: 9_775, failed: 225, makespanToBound: 0.99 })).toEqual([
      { target: TARGET, measured: '0.990× (225 of 10000 did not converge)', met: false },
    ]);
  });

  it('names a single lifecycle that did not converge, and misses the target for it', () => {
    expect(makespanVerdicts({ volumes: 10_000, converged: 9_999, unfinished: 1, makespanToBound: 1.05 })).toEqual([
      { target: TARGET, measured: '1.050× (1 of 10000 did not converge)', met: false },
    ]);
  });

  it('judges no other burst on it', () => {
    for (const volumes of [100, 1000]) {
      expect(makespanVerdicts({ volumes, makespanToBound: 3 })).toEqual([]);
      expect(checkTargets([designResult({ volumes, operationsFailedByThrottling: 5 })]).filter((check) => check.target.includes('throttling'))).toEqual([]);
    }
  });
});
