/**
 * The price list (`bench/sim/pricing.ts`) keeps DynamoDB Streams' read request price, $0.02 per
 * 100 000 read request units, to say why a run charges nothing for its streams: both designs read
 * them through Lambda triggers, whose GetRecords calls are not charged.
 */
import { describe, expect, it } from 'vitest';
import { US_EAST_1_PRICES, costOf } from '../../bench/sim/pricing.js';

describe("DynamoDB Streams' read price", () => {
  it('is $0.02 per 100 000 read request units, and a run costs nothing for its streams', () => {
    expect(US_EAST_1_PRICES.streamsPerReadUnitOutsideLambda * 100_000).toBeCloseTo(0.02, 12);
    const cost = costOf({
      lambdaArchitecture: 'arm64',
      apiGatewayRequests: 0,
      lambdaInvocations: 0,
      lambdaGbSeconds: 0,
      sqsRequests: 0,
      dynamodbWriteUnits: 0,
      dynamodbReadUnits: 0,
    });
    expect(cost.total).toBe(0);
  });
});
