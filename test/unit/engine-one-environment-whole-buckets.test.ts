/**
 * `environmentRateBudgets` gives each of `environments` executor environments an equal share of
 * EC2's buckets: a single environment (a deployment with an executor concurrency of 1) has all of
 * each bucket, its size and its refill.
 */
import { describe, expect, it } from 'vitest';
import { EC2_REQUEST_BUCKETS, environmentRateBudgets } from '../../lib/engine/config.js';

describe('the rate budget of a single executor environment', () => {
  it("is the whole of each of EC2's buckets", () => {
    expect(environmentRateBudgets(1)).toEqual(EC2_REQUEST_BUCKETS);
    const raised = { ...EC2_REQUEST_BUCKETS, CreateVolume: { burst: 200, ratePerSecond: 20 } };
    expect(environmentRateBudgets(1, raised).CreateVolume).toEqual({ burst: 200, ratePerSecond: 20 });
  });
});
