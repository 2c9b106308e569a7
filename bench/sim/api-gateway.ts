/**
 * API Gateway's throttles in front of a REST API, as "Throttle requests to your REST APIs" (API
 * Gateway developer guide) applies them: the account's token bucket, per Region and shared by all
 * its APIs, and then the stage's limits, which API Gateway applies at the method level. The
 * stage's rate and burst (which the stack sets as the stage's default method settings, for every
 * resource path and HTTP method) give each method (`POST /volumes`, `DELETE /volumes/{id}`) a
 * bucket of its own, not one bucket the methods share. A request either throttle refuses is
 * answered 429 Too Many Requests without reaching the integration.
 */
import { TokenBucket } from './token-bucket.js';

export interface ThrottleLimit {
  ratePerSecond: number;
  burst: number;
}

/** The account's throttle and one stage throttle per method, as the header says. */
export class ApiGatewayThrottles {
  private readonly account: TokenBucket;
  private readonly methods = new Map<string, TokenBucket>();

  constructor(
    account: ThrottleLimit,
    private readonly stage: ThrottleLimit,
    nowMs: number,
  ) {
    this.account = new TokenBucket(account.burst, account.ratePerSecond, nowMs);
  }

  /**
   * True when a request for `method` (HTTP method and resource path, `DELETE /volumes/{id}`) is
   * passed on at `nowMs`; false: answered 429. The account's bucket is asked first, then the
   * method's bucket of the stage.
   */
  admit(method: string, nowMs: number): boolean {
    if (!this.account.tryTake(nowMs)) return false;
    let bucket = this.methods.get(method);
    // A method's bucket is full until its first request, so one made then is the one it always had.
    if (!bucket) this.methods.set(method, (bucket = new TokenBucket(this.stage.burst, this.stage.ratePerSecond, nowMs)));
    return bucket.tryTake(nowMs);
  }
}
