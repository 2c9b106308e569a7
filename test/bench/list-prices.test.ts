import { describe, expect, it } from 'vitest';
import { US_EAST_1_PRICES, costOf, type UsageForCost } from '../../bench/sim/pricing.js';

const USAGE: UsageForCost = {
  lambdaArchitecture: 'arm64',
  apiGatewayRequests: 1_000_000,
  lambdaInvocations: 2_000_000,
  lambdaGbSeconds: 1_000_000,
  sqsRequests: 3_000_000,
  dynamodbWriteUnits: 4_000_000,
  dynamodbReadUnits: 5_000_000,
};

describe('the list prices a run is costed at', () => {
  it('are the us-east-1 prices BENCHMARKS.md cites', () => {
    expect(US_EAST_1_PRICES.apiGatewayRestPerRequest * 1e6).toBeCloseTo(3.5, 10);
    expect(US_EAST_1_PRICES.lambdaArmPerGbSecond).toBe(0.0000133334);
    expect(US_EAST_1_PRICES.lambdaX86PerGbSecond).toBe(0.0000166667);
    expect(US_EAST_1_PRICES.lambdaPerRequest * 1e6).toBeCloseTo(0.2, 10);
    expect(US_EAST_1_PRICES.sqsPerRequest * 1e6).toBeCloseTo(0.4, 10);
    expect(US_EAST_1_PRICES.dynamodbPerWriteUnit * 1e6).toBeCloseTo(0.625, 10);
    expect(US_EAST_1_PRICES.dynamodbPerReadUnit * 1e6).toBeCloseTo(0.125, 10);
  });

  it('price each service by its own count and add them up, duration at the Arm rate for arm64', () => {
    const cost = costOf(USAGE);
    expect(cost.apiGateway).toBeCloseTo(3.5, 9);
    expect(cost.lambdaRequests).toBeCloseTo(0.4, 9);
    expect(cost.lambdaDuration).toBeCloseTo(13.3334, 9);
    expect(cost.sqs).toBeCloseTo(1.2, 9);
    expect(cost.dynamodbWrites).toBeCloseTo(2.5, 9);
    expect(cost.dynamodbReads).toBeCloseTo(0.625, 9);
    expect(cost.total).toBeCloseTo(3.5 + 0.4 + 13.3334 + 1.2 + 2.5 + 0.625, 9);
  });

  it('price duration at the x86_64 rate for a function left at x86_64, and nothing else differently', () => {
    const arm = costOf(USAGE);
    const x86 = costOf({ ...USAGE, lambdaArchitecture: 'x86_64' });
    expect(x86.lambdaDuration).toBeCloseTo(16.6667, 9);
    expect(x86.total - arm.total).toBeCloseTo(16.6667 - 13.3334, 9);
  });
});
