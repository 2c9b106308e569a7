import type { Random } from './random.js';

/** z-score of the 99th percentile of the standard normal distribution. */
const Z99 = 2.3263478740408408;

/**
 * A lognormal latency distribution fitted to a median and a 99th percentile, the two figures AWS
 * latencies are usually quoted by. ln(X) ~ N(mu, sigma²) with mu = ln(median) and
 * sigma = ln(p99 / median) / z99; its 1st percentile is median² / p99.
 */
export class Lognormal {
  readonly mu: number;
  readonly sigma: number;

  constructor(
    readonly medianMs: number,
    readonly p99Ms: number,
  ) {
    if (!(medianMs > 0)) throw new Error(`medianMs: must be positive, got ${medianMs}`);
    if (!(p99Ms >= medianMs)) throw new Error(`p99Ms: must be at least medianMs (${medianMs}), got ${p99Ms}`);
    this.mu = Math.log(medianMs);
    this.sigma = Math.log(p99Ms / medianMs) / Z99;
  }

  /** One draw, in whole milliseconds (at least 1). */
  sample(random: Random): number {
    return Math.max(1, Math.round(Math.exp(this.mu + this.sigma * random.normal())));
  }

  /** The least a draw can be (`sample` rounds to whole milliseconds, at least 1): what a true lower bound may assume. */
  get minMs(): number {
    return 1;
  }

  /** The q-quantile (0 < q < 1), for deriving bounds. */
  quantile(q: number): number {
    return Math.exp(this.mu + this.sigma * normalQuantile(q));
  }
}

/** Inverse of the standard normal CDF (Acklam's rational approximation, relative error below 1.2e-9). */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) throw new Error(`p: must be in (0, 1), got ${p}`);
  const a = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
  const c = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const low = 0.02425;
  const [a0, a1, a2, a3, a4, a5] = a as [number, number, number, number, number, number];
  const [b0, b1, b2, b3, b4] = b as [number, number, number, number, number];
  const [c0, c1, c2, c3, c4, c5] = c as [number, number, number, number, number, number];
  const [d0, d1, d2, d3] = d as [number, number, number, number];
  if (p < low) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (((((c0 * q + c1) * q + c2) * q + c3) * q + c4) * q + c5) / ((((d0 * q + d1) * q + d2) * q + d3) * q + 1);
  }
  if (p > 1 - low) return -normalQuantile(1 - p);
  const q = p - 0.5;
  const r = q * q;
  return ((((((a0 * r + a1) * r + a2) * r + a3) * r + a4) * r + a5) * q) / (((((b0 * r + b1) * r + b2) * r + b3) * r + b4) * r + 1);
}

/**
 * The latencies the simulation draws from. EBS transition times follow the figures commonly
 * observed for gp3 volumes (CreateVolume → available median ~1.5 s, p99 ~4 s; attach and detach
 * 1–4 s, i.e. p1 ≈ 1 s and p99 = 4 s; delete ~1 s); API round trips and DynamoDB/SQS calls are
 * small next to them but are paid on every call.
 */
export interface LatencyModel {
  /** CreateVolume answered → volume `available`. */
  createVolume: Lognormal;
  /** AttachVolume answered → attachment `attached`. */
  attach: Lognormal;
  /** DetachVolume answered → volume `available` again. */
  detach: Lognormal;
  /** DeleteVolume answered → volume `deleted`. */
  deleteVolume: Lognormal;
  /** ModifyVolume answered → modification `optimizing`/`completed` (minutes). */
  modify: Lognormal;
  /** Round trip of one EC2 API request. */
  ec2Request: Lognormal;
  /** Round trip of one DynamoDB request. */
  dynamodbRequest: Lognormal;
  /** Round trip of one SQS request. */
  sqsRequest: Lognormal;
  /** Table write → record visible to the stream's consumer. */
  streamPropagation: Lognormal;
}

export const DEFAULT_LATENCIES: LatencyModel = {
  createVolume: new Lognormal(1500, 4000),
  attach: new Lognormal(2000, 4000),
  detach: new Lognormal(2000, 4000),
  deleteVolume: new Lognormal(1000, 2000),
  modify: new Lognormal(300_000, 900_000),
  ec2Request: new Lognormal(120, 400),
  dynamodbRequest: new Lognormal(6, 25),
  sqsRequest: new Lognormal(12, 50),
  streamPropagation: new Lognormal(250, 800),
};
