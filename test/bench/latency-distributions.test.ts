import { describe, expect, it } from 'vitest';
import { DEFAULT_LATENCIES, Lognormal, normalQuantile } from '../../bench/sim/latency.js';
import { Random } from '../../bench/sim/random.js';

describe('latency distributions', () => {
  it('are fitted to the medians and 99th percentiles BENCHMARKS.md gives for round trips, propagation and modifications', () => {
    const figures = (distribution: Lognormal) => [distribution.medianMs, distribution.p99Ms];
    expect(figures(DEFAULT_LATENCIES.ec2Request)).toEqual([120, 400]);
    expect(figures(DEFAULT_LATENCIES.dynamodbRequest)).toEqual([6, 25]);
    expect(figures(DEFAULT_LATENCIES.sqsRequest)).toEqual([12, 50]);
    expect(figures(DEFAULT_LATENCIES.streamPropagation)).toEqual([250, 800]);
    expect(figures(DEFAULT_LATENCIES.modify)).toEqual([300_000, 900_000]);
    for (const distribution of Object.values(DEFAULT_LATENCIES)) {
      expect(Math.abs(distribution.quantile(0.5) / distribution.medianMs - 1)).toBeLessThan(1e-8);
      expect(Math.abs(distribution.quantile(0.99) / distribution.p99Ms - 1)).toBeLessThan(1e-8);
    }
  });

  it('takes a p99 equal to the median (a fixed latency) and refuses a median of zero, naming the field', () => {
    const fixed = new Lognormal(300, 300);
    const random = new Random(3);
    expect(Array.from({ length: 20 }, () => fixed.sample(random))).toEqual(Array(20).fill(300));
    expect(() => new Lognormal(0, 10)).toThrow(/medianMs/);
    expect(() => new Lognormal(-5, 10)).toThrow(/medianMs/);
  });

  it('draws whole milliseconds rounded to the nearest, never below 1 ms, the least a lower bound may assume', () => {
    const random = new Random(5);
    expect(new Lognormal(2.6, 2.6).sample(random)).toBe(3);
    expect(new Lognormal(2.4, 2.4).sample(random)).toBe(2);
    const tiny = new Lognormal(0.3, 0.6);
    const draws = Array.from({ length: 1000 }, () => tiny.sample(random));
    expect(Math.min(...draws)).toBe(1);
    expect(draws.every((draw) => Number.isInteger(draw))).toBe(true);
    expect(tiny.minMs).toBe(1);
    expect(DEFAULT_LATENCIES.createVolume.minMs).toBe(1);
  });

  it('inverts the standard normal CDF within a relative error of 1.2e-9 in both tails and the centre, and refuses p of 0 or 1', () => {
    const known: [number, number][] = [
      [0.001, -3.090232306167813],
      [0.01, -2.3263478740408408],
      [0.025, -1.959963984540054],
      [0.05, -1.6448536269514722],
      [0.1, -1.2815515655446004],
      [0.3, -0.5244005127080407],
      [0.7, 0.5244005127080407],
      [0.9, 1.2815515655446004],
      [0.95, 1.6448536269514722],
      [0.975, 1.959963984540054],
      [0.999, 3.090232306167813],
    ];
    for (const [p, z] of known) expect(Math.abs(normalQuantile(p) / z - 1)).toBeLessThan(1.2e-9);
    expect(() => normalQuantile(0)).toThrow('p: must be in (0, 1), got 0');
    expect(() => normalQuantile(1)).toThrow('p: must be in (0, 1), got 1');
  });
});
