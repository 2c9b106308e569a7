/**
 * `Random.next()` promises [0, 1): its largest 32-bit draw (all 32 bits set) still gives a number
 * below 1, and so `uniform(min, max)` stays below `max`. Seed 3 543 772 583 is one whose first draw
 * is that one (found by trying every state of the generator once).
 */
import { describe, expect, it } from 'vitest';
import { Random } from '../../bench/sim/random.js';

const SEED_OF_LARGEST_FIRST_DRAW = 3_543_772_583;

describe('the largest draw of the seeded random numbers', () => {
  it('is 1 − 2⁻³², below 1', () => {
    const draw = new Random(SEED_OF_LARGEST_FIRST_DRAW).next();
    expect(draw).toBe((2 ** 32 - 1) / 2 ** 32);
    expect(draw).toBeLessThan(1);
  });

  it('keeps uniform(min, max) below max', () => {
    expect(new Random(SEED_OF_LARGEST_FIRST_DRAW).uniform(100, 110)).toBeLessThan(110);
  });
});
