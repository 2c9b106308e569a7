import { describe, expect, it } from 'vitest';
import { EC2_ACTION_BUCKET, EC2_REQUEST_LIMITS, Ec2RateLimiter, TokenBucket, type BucketLimit, type Ec2BucketName } from '../../bench/sim/token-bucket.js';

const T0 = Date.UTC(2026, 0, 1);

describe("EC2's request token buckets", () => {
  it('takes a bucket of one token and refuses one of none or one that never refills, naming the field', () => {
    const single = new TokenBucket(1, 1, T0);
    expect(single.tryTake(T0)).toBe(true);
    expect(single.tryTake(T0)).toBe(false);
    expect(single.tryTake(T0 + 1000)).toBe(true);
    expect(() => new TokenBucket(0.5, 1, T0)).toThrow(/capacity/);
    expect(() => new TokenBucket(1, 0, T0)).toThrow(/refillPerSecond/);
    expect(() => new TokenBucket(1, -1, T0)).toThrow(/refillPerSecond/);
  });

  it('refuses a time before its last one, naming it, and leaves its tokens as they were', () => {
    const bucket = new TokenBucket(10, 1, T0);
    expect(bucket.tryTake(T0 + 1000)).toBe(true);
    expect(() => bucket.tryTake(T0 + 999)).toThrow(/nowMs/);
    expect(() => bucket.available(T0)).toThrow(/nowMs/);
    expect(bucket.available(T0 + 1000)).toBe(9);
  });

  it('counts the requests it admits and the ones it refuses', () => {
    const bucket = new TokenBucket(3, 1, T0);
    for (let i = 0; i < 5; i++) bucket.tryTake(T0);
    expect(bucket.admitted).toBe(3);
    expect(bucket.refused).toBe(2);
  });

  it('meters an unfiltered, unpaginated DescribeInstances in the unfiltered non-mutating bucket, shared with DescribeVolumes', () => {
    expect(EC2_ACTION_BUCKET.DescribeInstances).toBe('unfilteredNonMutating');
    const limiter = new Ec2RateLimiter(T0);
    for (let i = 0; i < 50; i++) expect(limiter.admit(i % 2 === 0 ? 'DescribeInstances' : 'DescribeVolumes', T0)).toBe(true);
    expect(limiter.admit('DescribeInstances', T0)).toBe(false);
    expect(limiter.admit('DescribeVolumesModifications', T0)).toBe(true);
  });

  it('meters DescribeVolumesModifications in the standard non-mutating bucket, 100 at once', () => {
    expect(EC2_ACTION_BUCKET.DescribeVolumesModifications).toBe('nonMutating');
    const limiter = new Ec2RateLimiter(T0);
    for (let i = 0; i < 100; i++) expect(limiter.admit('DescribeVolumesModifications', T0)).toBe(true);
    expect(limiter.admit('DescribeVolumesModifications', T0)).toBe(false);
    expect(limiter.admit('DescribeVolumes', T0)).toBe(true);
  });

  it('gives each bucket the limit named for it when limits other than EC2s are passed', () => {
    const names = Object.keys(EC2_REQUEST_LIMITS) as Ec2BucketName[];
    const limits = Object.fromEntries(names.map((name, index) => [name, { capacity: index + 1, refillPerSecond: 1 }])) as Record<Ec2BucketName, BucketLimit>;
    const limiter = new Ec2RateLimiter(T0, limits);
    for (const [index, name] of names.entries()) {
      expect(limiter.buckets[name].capacity).toBe(index + 1);
      expect(limiter.buckets[name].available(T0)).toBe(index + 1);
    }
  });
});
