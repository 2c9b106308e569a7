/**
 * The shared rate budget in memory: one process's executors spending EC2's buckets together (the
 * local runtime, tests and the simulator).
 */
import type { RateBucket, RateBudget } from '../engine/config.js';
import type { SharedRateBudget, TokensTaken } from '../engine/ports.js';
import { grantTokens, tokenWaitMs, type SharedBucketLevel } from '../engine/rate-limiter.js';

export class MemoryRateBudget implements SharedRateBudget {
  private readonly levels = new Map<RateBucket, SharedBucketLevel>();

  async take(bucket: RateBucket, count: number, budget: RateBudget, now: number, maxWaitMs: number): Promise<TokensTaken> {
    const grant = grantTokens(this.levels.get(bucket), budget, count, now, maxWaitMs);
    // As the DynamoDB budget's write, which its client refuses: a level that is no number it
    // writes (from a time or budget that is NaN or infinite) is not stored, where kept it would
    // grant nothing to anyone from then on.
    for (const [field, value] of Object.entries(grant.level)) {
      if (!(Math.abs(value) <= Number.MAX_SAFE_INTEGER)) throw new RangeError(`rate budget ${bucket}: ${field} would be ${value}, a number the DynamoDB client does not write`);
    }
    this.levels.set(bucket, grant.level);
    return { usableAt: grant.usableAt, nextAt: grant.nextAt };
  }

  async waitMs(bucket: RateBucket, budget: RateBudget, now: number): Promise<number> {
    return tokenWaitMs(this.levels.get(bucket), budget, now);
  }

  /** The stored level of `bucket` (undefined: never taken from, a full bucket). */
  level(bucket: RateBucket): SharedBucketLevel | undefined {
    const level = this.levels.get(bucket);
    return level && { ...level };
  }
}
