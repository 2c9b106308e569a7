import { Random } from '../../bench/sim/random.js';

/** A random source that always draws the same number, so waits can be stated exactly. */
export class FixedRandom extends Random {
  constructor(private readonly value: number) {
    super(1);
  }

  override next(): number {
    return this.value;
  }
}
