/**
 * Token bucket on the injected clock: callers `take()` a token before each mutating EC2 call and
 * wait when the bucket is empty, or `reserve()` one ahead and learn when it will be theirs.
 * Throttling halves the refill rate (multiplicative decrease); successes restore it step by step
 * (additive increase), so several buckets sharing one EC2 account bucket settle near its rate.
 */
import type { Clock, TokensTaken } from './ports.js';
import type { RateBudget } from './config.js';

/** Successes it takes to win back `ratePerSecond` of rate. */
const INCREASE_STEPS = 20;

export class TokenBucket {
  private tokens: number;
  private updatedAt: number;
  private rate: number;
  /** Counts RequestLimitExceeded answers, so holders of earlier reservations can tell the rate dropped. */
  private throttles = 0;
  /** Serialises waiters so tokens go out in call order. */
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly clock: Clock,
    private readonly budget: RateBudget,
    private readonly throttleFactor = 0.5,
  ) {
    this.tokens = budget.burst;
    this.rate = budget.ratePerSecond;
    this.updatedAt = clock.now();
  }

  /** How many times EC2 has throttled calls under this bucket. */
  get throttleCount(): number {
    return this.throttles;
  }

  /** Current refill rate (tokens per second). */
  get ratePerSecond(): number {
    return this.rate;
  }

  /** Resolves once a token is available, and takes it. */
  take(): Promise<void> {
    const turn = this.queue.then(() => this.takeNow());
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  /** Takes a token if one is there now; never waits. */
  tryTake(): boolean {
    this.refill();
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** Milliseconds until a token is available (0 when one is there now). */
  msUntilToken(): number {
    this.refill();
    return this.tokens >= 1 ? 0 : Math.ceil(((1 - this.tokens) / this.rate) * 1000);
  }

  /**
   * Takes the next token, borrowing from the refill when the bucket is empty, and returns how
   * many milliseconds from now it becomes usable (0: at once). `refund()` gives it back.
   */
  reserve(): number {
    this.refill();
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : Math.ceil((-this.tokens / this.rate) * 1000);
  }

  /** Returns a reserved token that was not used. */
  refund(): void {
    this.refill();
    this.tokens = Math.min(this.budget.burst, this.tokens + 1);
  }

  /** EC2 said RequestLimitExceeded: slow down and drop the burst. */
  throttled(): void {
    this.refill();
    this.throttles++;
    this.rate = Math.max(this.budget.ratePerSecond / 16, this.rate * this.throttleFactor);
    this.tokens = Math.min(this.tokens, 0);
  }

  /**
   * A call went through: raise the rate by a small step (a twentieth of the base rate) up to the
   * maximum, so buckets sharing one EC2 bucket probe upwards slowly and rarely overrun it together.
   */
  succeeded(): void {
    this.rate = Math.min(this.budget.maxRatePerSecond ?? this.budget.ratePerSecond, this.rate + this.budget.ratePerSecond / INCREASE_STEPS);
  }

  /** A clock set back (the system clock stepped) refills nothing, rather than taking back tokens, and the refill goes on from there. */
  private refill(): void {
    const now = this.clock.now();
    this.tokens = Math.min(this.budget.burst, this.tokens + (Math.max(0, now - this.updatedAt) / 1000) * this.rate);
    this.updatedAt = now;
  }

  private async takeNow(): Promise<void> {
    for (;;) {
      this.refill();
      if (this.tokens >= 1) {
        this.tokens -= 1;
        return;
      }
      await this.clock.sleep(Math.ceil(((1 - this.tokens) / this.rate) * 1000));
    }
  }
}

/** A token bucket kept outside any one environment (a table item): its level at a moment. */
export interface SharedBucketLevel {
  /** Tokens left at `updatedAt`; below zero while tokens are reserved ahead of the refill. */
  tokens: number;
  /** Epoch ms. */
  updatedAt: number;
}

export interface TokenGrant extends TokensTaken {
  /** The bucket's level after the grant, to be stored. */
  level: SharedBucketLevel;
}

/**
 * How long a token taken at `now` from a shared bucket stored at `level` would wait (ms): the line
 * of calls that took theirs ahead of the refill. 0 while the bucket has a token.
 *
 * @example
 * // 20 tokens taken ahead of an empty bucket refilling 5/s: a new one waits 4.2 s.
 * tokenWaitMs({ tokens: -20, updatedAt: now }, { burst: 50, ratePerSecond: 5 }, now); // 4200
 */
export function tokenWaitMs(level: SharedBucketLevel | undefined, budget: RateBudget, now: number): number {
  return grantTokens(level, budget, 1, now, Number.POSITIVE_INFINITY).usableAt[0]! - now;
}

/**
 * Takes up to `count` tokens from a shared bucket at `now`: refills it at `budget.ratePerSecond`
 * since its level was stored (at most `budget.burst`; a missing level is a full bucket), then
 * grants tokens as long as each is usable within `maxWaitMs`, reserving ahead of the refill for
 * those that wait. A level stored by an environment whose clock runs ahead is never refilled
 * backwards.
 *
 * @example
 * // A full bucket of 50 refilling 5/s; 60 wanted, waiting up to 1 s: 50 now, 5 within the second.
 * grantTokens(undefined, { burst: 50, ratePerSecond: 5 }, 60, now, 1000).usableAt.length; // 55
 */
export function grantTokens(level: SharedBucketLevel | undefined, budget: RateBudget, count: number, now: number, maxWaitMs: number): TokenGrant {
  const since = level ? Math.max(0, now - level.updatedAt) : 0;
  const available = level ? Math.min(budget.burst, level.tokens + (since / 1000) * budget.ratePerSecond) : budget.burst;
  const usableAtOf = (index: number) => now + Math.max(0, Math.ceil(((index + 1 - available) / budget.ratePerSecond) * 1000));
  const usableAt: number[] = [];
  while (usableAt.length < count && usableAtOf(usableAt.length) - now <= maxWaitMs) usableAt.push(usableAtOf(usableAt.length));
  return {
    usableAt,
    nextAt: usableAtOf(usableAt.length),
    level: { tokens: available - usableAt.length, updatedAt: Math.max(now, level?.updatedAt ?? now) },
  };
}
