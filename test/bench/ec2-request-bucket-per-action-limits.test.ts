/**
 * EC2's request token buckets per action, as BENCHMARKS.md (What the simulation models) states
 * them from "Request throttling for the Amazon EC2 API": CreateVolume 100 / 5 s⁻¹, DeleteVolume
 * 100 / 5 s⁻¹, CreateTags 100 / 10 s⁻¹ and DeleteTags 100 / 10 s⁻¹, each a bucket of its own;
 * AttachVolume, DetachVolume and ModifyVolume sharing the mutating bucket, 50 / 5 s⁻¹;
 * DescribeVolumes and DescribeInstances sent without a filter or pagination sharing the unfiltered
 * non-mutating bucket, 50 / 10 s⁻¹; DescribeVolumesModifications in the non-mutating bucket,
 * 100 / 20 s⁻¹. A bucket refills continuously at its rate.
 */
import { describe, expect, it } from 'vitest';
import { EC2_ACTIONS, Ec2RateLimiter, type Ec2Action } from '../../bench/sim/token-bucket.js';

const T0 = Date.UTC(2026, 0, 1);

const DOCUMENTED: Array<{ actions: Ec2Action[]; capacity: number; refillPerSecond: number }> = [
  { actions: ['CreateVolume'], capacity: 100, refillPerSecond: 5 },
  { actions: ['DeleteVolume'], capacity: 100, refillPerSecond: 5 },
  { actions: ['CreateTags'], capacity: 100, refillPerSecond: 10 },
  { actions: ['DeleteTags'], capacity: 100, refillPerSecond: 10 },
  { actions: ['AttachVolume', 'DetachVolume', 'ModifyVolume'], capacity: 50, refillPerSecond: 5 },
  { actions: ['DescribeVolumes', 'DescribeInstances'], capacity: 50, refillPerSecond: 10 },
  { actions: ['DescribeVolumesModifications'], capacity: 100, refillPerSecond: 20 },
];

/** How many of `count` requests of `action` at `at` are admitted. */
function admitted(limiter: Ec2RateLimiter, action: Ec2Action, at: number, count: number): number {
  let n = 0;
  for (let i = 0; i < count; i++) if (limiter.admit(action, at)) n++;
  return n;
}

describe("EC2's request buckets per action", () => {
  it('names every action the simulation sends in exactly one documented group', () => {
    expect(DOCUMENTED.flatMap((group) => group.actions).sort()).toEqual([...EC2_ACTIONS].sort());
  });

  for (const { actions, capacity, refillPerSecond } of DOCUMENTED) {
    for (const action of actions) {
      it(`admits a burst of ${capacity} ${action} requests, then ${refillPerSecond} a second`, () => {
        const limiter = new Ec2RateLimiter(T0);
        expect(admitted(limiter, action, T0, capacity + 1)).toBe(capacity);
        // Less than one token's refill later, still nothing.
        expect(admitted(limiter, action, T0 + Math.ceil(1000 / refillPerSecond) - 1, 1)).toBe(0);
        // One second after the burst, the rate's tokens and no more.
        expect(admitted(limiter, action, T0 + 1000, refillPerSecond + 1)).toBe(refillPerSecond);
      });
    }
  }

  it('empties a bucket for the actions sharing it and for no other', () => {
    for (const drained of DOCUMENTED) {
      for (const action of drained.actions) {
        const limiter = new Ec2RateLimiter(T0);
        admitted(limiter, action, T0, drained.capacity);
        for (const other of DOCUMENTED) {
          for (const probe of other.actions) {
            expect([action, probe, limiter.admit(probe, T0)]).toEqual([action, probe, other !== drained]);
          }
        }
      }
    }
  });
});
