/**
 * EC2's request throttling, as documented in "Request throttling for the Amazon EC2 API"
 * (https://docs.aws.amazon.com/ec2/latest/devguide/ec2-api-throttling.html): one token bucket
 * per API action category, per account and Region; each request takes one token; a bucket
 * refills at a fixed rate up to its maximum; a request finding its bucket empty fails with
 * RequestLimitExceeded.
 */

/** A token bucket refilled continuously at `refillPerSecond`, holding at most `capacity`. */
export class TokenBucket {
  private tokens: number;
  private updatedAt: number;
  /** Requests refused because the bucket was empty. */
  refused = 0;
  /** Requests admitted. */
  admitted = 0;

  constructor(
    readonly capacity: number,
    readonly refillPerSecond: number,
    nowMs: number,
  ) {
    if (!(capacity >= 1)) throw new Error(`capacity: must be at least 1, got ${capacity}`);
    if (!(refillPerSecond > 0)) throw new Error(`refillPerSecond: must be positive, got ${refillPerSecond}`);
    this.tokens = capacity;
    this.updatedAt = nowMs;
  }

  /** Tokens available at `nowMs` (fractional while refilling). */
  available(nowMs: number): number {
    this.refill(nowMs);
    return this.tokens;
  }

  /** Takes one token if there is a whole one; false means the request is throttled. */
  tryTake(nowMs: number): boolean {
    this.refill(nowMs);
    if (this.tokens >= 1) {
      this.tokens -= 1;
      this.admitted++;
      return true;
    }
    this.refused++;
    return false;
  }

  private refill(nowMs: number): void {
    if (nowMs < this.updatedAt) throw new Error(`nowMs: time went backwards (${nowMs} < ${this.updatedAt})`);
    this.tokens = Math.min(this.capacity, this.tokens + ((nowMs - this.updatedAt) / 1000) * this.refillPerSecond);
    this.updatedAt = nowMs;
  }
}

/** The EC2 API actions the provisioner and the naive design use. */
export const EC2_ACTIONS = [
  'CreateVolume',
  'DeleteVolume',
  'CreateTags',
  'DeleteTags',
  'AttachVolume',
  'DetachVolume',
  'ModifyVolume',
  'DescribeVolumes',
  'DescribeInstances',
  'DescribeVolumesModifications',
] as const;
export type Ec2Action = (typeof EC2_ACTIONS)[number];

export interface BucketLimit {
  capacity: number;
  refillPerSecond: number;
}

/**
 * Request token bucket sizes and refill rates from the AWS page cited above. CreateVolume,
 * DeleteVolume, CreateTags and DeleteTags are "uncategorized actions" with buckets of their own
 * (DeleteTags 100 / 10, as CreateTags); AttachVolume, DetachVolume and ModifyVolume share the
 * "mutating actions" bucket; DescribeVolumes and
 * DescribeInstances without a filter or pagination use the "unfiltered and unpaginated
 * non-mutating" bucket; other Describe* calls use the "non-mutating actions" bucket.
 */
export const EC2_REQUEST_LIMITS = {
  CreateVolume: { capacity: 100, refillPerSecond: 5 },
  DeleteVolume: { capacity: 100, refillPerSecond: 5 },
  CreateTags: { capacity: 100, refillPerSecond: 10 },
  DeleteTags: { capacity: 100, refillPerSecond: 10 },
  mutating: { capacity: 50, refillPerSecond: 5 },
  unfilteredNonMutating: { capacity: 50, refillPerSecond: 10 },
  nonMutating: { capacity: 100, refillPerSecond: 20 },
} as const satisfies Record<string, BucketLimit>;
export type Ec2BucketName = keyof typeof EC2_REQUEST_LIMITS;

/** Which bucket each action draws from. */
export const EC2_ACTION_BUCKET: Record<Ec2Action, Ec2BucketName> = {
  CreateVolume: 'CreateVolume',
  DeleteVolume: 'DeleteVolume',
  CreateTags: 'CreateTags',
  AttachVolume: 'mutating',
  DetachVolume: 'mutating',
  ModifyVolume: 'mutating',
  DeleteTags: 'DeleteTags',
  DescribeVolumes: 'unfilteredNonMutating',
  DescribeInstances: 'unfilteredNonMutating',
  DescribeVolumesModifications: 'nonMutating',
};

/** One account-and-Region's set of EC2 request buckets. */
export class Ec2RateLimiter {
  readonly buckets: Record<Ec2BucketName, TokenBucket>;

  constructor(nowMs: number, limits: Record<Ec2BucketName, BucketLimit> = EC2_REQUEST_LIMITS) {
    const bucket = (name: Ec2BucketName) => new TokenBucket(limits[name].capacity, limits[name].refillPerSecond, nowMs);
    this.buckets = {
      CreateVolume: bucket('CreateVolume'),
      DeleteVolume: bucket('DeleteVolume'),
      CreateTags: bucket('CreateTags'),
      DeleteTags: bucket('DeleteTags'),
      mutating: bucket('mutating'),
      unfilteredNonMutating: bucket('unfilteredNonMutating'),
      nonMutating: bucket('nonMutating'),
    };
  }

  /**
   * True when `action` may proceed at `nowMs`; false: answer RequestLimitExceeded. `bucket`
   * overrides the action's own bucket (a describe sent with a filter or pagination is metered in
   * the standard non-mutating bucket, not the unfiltered one).
   */
  admit(action: Ec2Action, nowMs: number, bucket: Ec2BucketName = EC2_ACTION_BUCKET[action]): boolean {
    return this.buckets[bucket].tryTake(nowMs);
  }
}
