/**
 * `Random.fork()` derives an independent generator: forks taken one after another from one
 * parent are distinct generators, not a few seeds handed out again.
 */
import { describe, expect, it } from 'vitest';
import { Random } from '../../bench/sim/random.js';

describe('forks of the seeded random numbers', () => {
  it('are 2000 distinct generators when 2000 are taken from one parent', () => {
    const parent = new Random(21);
    const firstDraws = new Set(Array.from({ length: 2000 }, () => parent.fork().next()));
    expect(firstDraws.size).toBe(2000);
  });
});
