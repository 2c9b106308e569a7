/**
 * The latency model's draws, as BENCHMARKS.md (What the simulation models, EBS latencies) states
 * them: lognormal distributions fitted to a median and a 99th percentile — CreateVolume →
 * available 1.5 s / 4 s, attach and detach 2 s / 4 s (so p1–p99 is 1–4 s), delete 1 s / 2 s,
 * modifications 5 min / 15 min — whose draws have those medians and 99th percentiles.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_LATENCIES, Lognormal } from '../../bench/sim/latency.js';
import { Random } from '../../bench/sim/random.js';

const DRAWS = 100_000;

/** The q-quantile of `sorted` (nearest rank). */
function empirical(sorted: Float64Array, q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}

describe("the latency model's draws", () => {
  it('fits the EBS steps to the medians and 99th percentiles BENCHMARKS.md gives', () => {
    const figures = (distribution: Lognormal) => [distribution.medianMs, distribution.p99Ms];
    expect(figures(DEFAULT_LATENCIES.createVolume)).toEqual([1500, 4000]);
    expect(figures(DEFAULT_LATENCIES.attach)).toEqual([2000, 4000]);
    expect(figures(DEFAULT_LATENCIES.detach)).toEqual([2000, 4000]);
    expect(figures(DEFAULT_LATENCIES.deleteVolume)).toEqual([1000, 2000]);
    // Attach and detach: p1–p99 is 1–4 s.
    expect(Math.round(DEFAULT_LATENCIES.attach.quantile(0.01))).toBe(1000);
    expect(Math.round(DEFAULT_LATENCIES.detach.quantile(0.01))).toBe(1000);
  });

  it('draws with the median and the 99th percentile each distribution is fitted to', () => {
    const random = new Random(7);
    for (const [name, distribution] of Object.entries(DEFAULT_LATENCIES)) {
      const draws = Float64Array.from({ length: DRAWS }, () => distribution.sample(random)).sort();
      // Draws are whole milliseconds: half a millisecond of rounding either way.
      const near = (actual: number, expected: number, relative: number) => Math.abs(actual - expected) <= relative * expected + 0.5;
      expect([name, 'median', near(empirical(draws, 0.5), distribution.medianMs, 0.01)]).toEqual([name, 'median', true]);
      expect([name, 'p99', near(empirical(draws, 0.99), distribution.p99Ms, 0.03)]).toEqual([name, 'p99', true]);
      expect([name, 'p1', near(empirical(draws, 0.01), distribution.medianMs ** 2 / distribution.p99Ms, 0.03)]).toEqual([name, 'p1', true]);
    }
  });

  it('refuses a 99th percentile below the median, naming both', () => {
    expect(() => new Lognormal(100, 99)).toThrow('p99Ms: must be at least medianMs (100), got 99');
  });
});
