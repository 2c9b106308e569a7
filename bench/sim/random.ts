/**
 * Seeded pseudo-random numbers for the simulator: the same seed gives the same run.
 * mulberry32 (a 32-bit state generator, public domain) is small, fast and good enough for
 * sampling latencies; it is not for anything cryptographic.
 */
export class Random {
  private state: number;

  constructor(seed: number) {
    if (!Number.isInteger(seed)) throw new Error(`seed: must be an integer, got ${seed}`);
    this.state = seed >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Uniform in [min, max). */
  uniform(min: number, max: number): number {
    return min + (max - min) * this.next();
  }

  /** Standard normal (Box–Muller). */
  normal(): number {
    let u = this.next();
    while (u === 0) u = this.next();
    const v = this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /** An independent generator derived from this one, so adding draws in one place does not shift another. */
  fork(): Random {
    return new Random(Math.floor(this.next() * 4294967296));
  }
}
