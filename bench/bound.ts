/**
 * The fastest any design could finish a workload on EC2: each lifecycle needs at least one
 * CreateVolume, two calls from the shared mutating bucket (AttachVolume, DetachVolume) and one
 * DeleteVolume. Bucket b, holding C_b tokens and refilling r_b per second, cannot hand out its
 * d_b-th token before (d_b − C_b) / r_b; after that token the volume still has to go through the
 * rest of its lifecycle on EBS, taken at the least any draw of the latency model can be (1 ms a
 * step: the lognormal distributions have no higher floor), plus the fixed hold time. So no run
 * in which every lifecycle converges can finish sooner: it is a true lower bound for such runs,
 * not a typical time. A run whose lifecycles fail or give up makes fewer calls than the bound
 * counts, and its makespan (the last lifecycle to end, converged or failed) can fall below it.
 * Arrivals bound it too: the last request arrives at (N − 1) / rate and then needs a whole
 * lifecycle.
 */
import type { LatencyModel } from './sim/latency.js';
import { EC2_REQUEST_LIMITS, type BucketLimit } from './sim/token-bucket.js';
import type { ArrivalPattern } from './workload.js';

export interface LowerBound {
  ms: number;
  /** Which term set it, with its figures, for the report. */
  derivation: string;
  terms: Array<{ name: string; ms: number; detail: string }>;
}

/** The lower bound of the header for `volumes` lifecycles arriving as `arrival`: the largest of its terms, with each term for the report. */
export function lowerBound(volumes: number, arrival: ArrivalPattern, holdMs: number, latencies: LatencyModel): LowerBound {
  const create = latencies.createVolume.minMs;
  const attach = latencies.attach.minMs;
  const detach = latencies.detach.minMs;
  const remove = latencies.deleteVolume.minMs;
  const lifecycle = create + attach + holdMs + detach + remove;
  const lastArrival = arrival.kind === 'burst' ? 0 : ((volumes - 1) * 1000) / arrival.perSecond;
  const bucketTerm = (name: string, limit: BucketLimit, demand: number, tail: number, tailText: string) => {
    const waitMs = (Math.max(0, demand - limit.capacity) / limit.refillPerSecond) * 1000;
    return {
      name,
      ms: Math.max(lastArrival, waitMs) + tail,
      detail: `max(${fmt(lastArrival)} last arrival, (${demand} − ${limit.capacity}) / ${limit.refillPerSecond}/s = ${fmt(waitMs)}) + ${tailText} ${fmt(tail)}`,
    };
  };
  const terms = [
    bucketTerm('CreateVolume bucket', EC2_REQUEST_LIMITS.CreateVolume, volumes, lifecycle, 'create+attach+hold+detach+delete'),
    bucketTerm('mutating bucket (attach+detach)', EC2_REQUEST_LIMITS.mutating, 2 * volumes, detach + remove, 'detach+delete'),
    bucketTerm('DeleteVolume bucket', EC2_REQUEST_LIMITS.DeleteVolume, volumes, remove, 'delete'),
    { name: 'arrivals', ms: lastArrival + lifecycle, detail: `${fmt(lastArrival)} last arrival + lifecycle ${fmt(lifecycle)}` },
  ];
  const top = terms.reduce((a, b) => (b.ms > a.ms ? b : a));
  return { ms: top.ms, derivation: `${top.name}: ${top.detail}`, terms };
}

function fmt(ms: number): string {
  return ms >= 10_000 ? `${(ms / 1000).toFixed(0)} s` : `${(ms / 1000).toFixed(1)} s`;
}
