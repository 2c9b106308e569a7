/**
 * Published us-east-1 list prices (on-demand, no free tier, no savings plans), used to put a
 * price on one simulated run. EC2 API calls themselves are free.
 */
export const US_EAST_1_PRICES = {
  /** https://aws.amazon.com/lambda/pricing/ — Arm (Graviton) duration, first 7.5 billion GB-s a month. */
  lambdaArmPerGbSecond: 0.0000133334,
  /** https://aws.amazon.com/lambda/pricing/ — x86 duration (Lambda's default architecture), first 6 billion GB-s a month. */
  lambdaX86PerGbSecond: 0.0000166667,
  /** https://aws.amazon.com/lambda/pricing/ — $0.20 per million requests. */
  lambdaPerRequest: 0.2 / 1e6,
  /** https://aws.amazon.com/api-gateway/pricing/ — REST APIs, $3.50 per million requests (first 333 million a month). */
  apiGatewayRestPerRequest: 3.5 / 1e6,
  /** https://aws.amazon.com/sqs/pricing/ — standard queue, $0.40 per million requests (each 64 KB chunk). */
  sqsPerRequest: 0.4 / 1e6,
  /** https://aws.amazon.com/dynamodb/pricing/on-demand/ — $0.625 per million write request units (since Nov 2024). */
  dynamodbPerWriteUnit: 0.625 / 1e6,
  /** https://aws.amazon.com/dynamodb/pricing/on-demand/ — $0.125 per million read request units (since Nov 2024). */
  dynamodbPerReadUnit: 0.125 / 1e6,
  /**
   * https://aws.amazon.com/dynamodb/pricing/on-demand/ — streams read request units are $0.02 per
   * 100 000, but GetRecords calls made by a Lambda trigger are not charged; both designs here
   * read the stream through Lambda, so the stream costs nothing.
   */
  streamsPerReadUnitOutsideLambda: 0.02 / 1e5,
} as const;

/** The instruction set a design's functions run on, which sets Lambda's duration price. */
export type LambdaArchitecture = 'arm64' | 'x86_64';

export interface UsageForCost {
  /** The provisioner's stack deploys arm64; a function left at Lambda's defaults (the naive design) runs on x86_64. */
  lambdaArchitecture: LambdaArchitecture;
  apiGatewayRequests: number;
  lambdaInvocations: number;
  lambdaGbSeconds: number;
  sqsRequests: number;
  dynamodbWriteUnits: number;
  dynamodbReadUnits: number;
}

export interface CostBreakdown {
  apiGateway: number;
  lambdaRequests: number;
  lambdaDuration: number;
  sqs: number;
  dynamodbWrites: number;
  dynamodbReads: number;
  total: number;
}

/** What `usage` costs in US dollars at the prices above. */
export function costOf(usage: UsageForCost): CostBreakdown {
  const p = US_EAST_1_PRICES;
  const apiGateway = usage.apiGatewayRequests * p.apiGatewayRestPerRequest;
  const lambdaRequests = usage.lambdaInvocations * p.lambdaPerRequest;
  const lambdaDuration = usage.lambdaGbSeconds * (usage.lambdaArchitecture === 'arm64' ? p.lambdaArmPerGbSecond : p.lambdaX86PerGbSecond);
  const sqs = usage.sqsRequests * p.sqsPerRequest;
  const dynamodbWrites = usage.dynamodbWriteUnits * p.dynamodbPerWriteUnit;
  const dynamodbReads = usage.dynamodbReadUnits * p.dynamodbPerReadUnit;
  return {
    apiGateway,
    lambdaRequests,
    lambdaDuration,
    sqs,
    dynamodbWrites,
    dynamodbReads,
    total: apiGateway + lambdaRequests + lambdaDuration + sqs + dynamodbWrites + dynamodbReads,
  };
}
