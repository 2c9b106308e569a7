import { describe, expect, it } from 'vitest';
import { Random } from '../../bench/sim/random.js';

describe('the seeded random numbers', () => {
  it('refuses a seed that is not an integer, naming it', () => {
    expect(() => new Random(1.5)).toThrow(/seed/);
    expect(() => new Random(Number.NaN)).toThrow(/seed/);
  });

  it('draws uniform numbers within [min, max), spread over the whole range', () => {
    const random = new Random(9);
    const draws = Array.from({ length: 10_000 }, () => random.uniform(100, 110));
    expect(Math.min(...draws)).toBeGreaterThanOrEqual(100);
    expect(Math.max(...draws)).toBeLessThan(110);
    expect(Math.min(...draws)).toBeLessThan(100.1);
    expect(Math.max(...draws)).toBeGreaterThan(109.9);
    const mean = draws.reduce((a, b) => a + b, 0) / draws.length;
    expect(Math.abs(mean - 105)).toBeLessThan(0.1);
  });

  it('draws standard normal numbers: mean 0, standard deviation 1', () => {
    const random = new Random(4);
    const draws = Array.from({ length: 40_000 }, () => random.normal());
    const mean = draws.reduce((a, b) => a + b, 0) / draws.length;
    const sd = Math.sqrt(draws.reduce((a, b) => a + (b - mean) ** 2, 0) / draws.length);
    expect(Math.abs(mean)).toBeLessThan(0.02);
    expect(Math.abs(sd - 1)).toBeLessThan(0.02);
  });

  it('forks generators that differ from each other and from their parent', () => {
    const parent = new Random(12);
    const a = parent.fork();
    const b = parent.fork();
    const draws = (random: Random) => Array.from({ length: 5 }, () => random.next());
    const fromA = draws(a);
    expect(draws(b)).not.toEqual(fromA);
    expect(draws(parent)).not.toEqual(fromA);
    expect(draws(new Random(12).fork())).toEqual(fromA);
  });
});
