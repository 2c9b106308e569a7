/**
 * The lower bound's derivation as the report prints it ("Lower bound: …", `bench/report.ts`) is
 * the one BENCHMARKS.md publishes for each workload of `npm run bench` (hold 10 s, steady
 * arrivals 1 a second); where terms tie, the first named sets the bound. A bucket whose demand
 * fits its capacity shows no wait.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { lowerBound } from '../../bench/bound.js';
import { DEFAULT_LATENCIES } from '../../bench/sim/latency.js';
import type { ArrivalPattern } from '../../bench/workload.js';

const HOLD_MS = 10_000;
const WORKLOADS: Array<[number, ArrivalPattern]> = [
  [100, { kind: 'burst' }],
  [100, { kind: 'steady', perSecond: 1 }],
  [1000, { kind: 'burst' }],
  [1000, { kind: 'steady', perSecond: 1 }],
];

function publishedBounds(): string[] {
  const text = readFileSync(new URL('../../BENCHMARKS.md', import.meta.url), 'utf8');
  const results = text.slice(text.indexOf('## Results'), text.indexOf('## Burst of 10 000'));
  return results.split('\n').filter((line) => line.startsWith('Lower bound: '));
}

describe('the makespan lower bound as BENCHMARKS.md publishes it', () => {
  it("prints each workload's bound as published, in the order of the results", () => {
    const printed = WORKLOADS.map(([volumes, arrival]) => `Lower bound: ${lowerBound(volumes, arrival, HOLD_MS, DEFAULT_LATENCIES).derivation}.`);
    expect(printed).toEqual(publishedBounds());
  });

  it('names the CreateVolume bucket, the first term, when it ties with the arrivals', () => {
    const bound = lowerBound(100, { kind: 'steady', perSecond: 1 }, HOLD_MS, DEFAULT_LATENCIES);
    const byName = Object.fromEntries(bound.terms.map((term) => [term.name, term.ms]));
    expect(byName['CreateVolume bucket']).toBe(byName.arrivals);
    expect(bound.derivation).toMatch(/^CreateVolume bucket: /);
  });

  it('shows a wait of 0 for a bucket whose demand fits its capacity, never a negative one', () => {
    const bound = lowerBound(20, { kind: 'burst' }, HOLD_MS, DEFAULT_LATENCIES);
    const details = bound.terms.filter((term) => term.name !== 'arrivals').map((term) => term.detail);
    expect(details).toEqual([
      'max(0.0 s last arrival, (20 − 100) / 5/s = 0.0 s) + create+attach+hold+detach+delete 10 s',
      'max(0.0 s last arrival, (40 − 50) / 5/s = 0.0 s) + detach+delete 0.0 s',
      'max(0.0 s last arrival, (20 − 100) / 5/s = 0.0 s) + delete 0.0 s',
    ]);
  });
});
