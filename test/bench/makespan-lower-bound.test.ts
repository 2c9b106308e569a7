import { describe, expect, it } from 'vitest';
import { lowerBound } from '../../bench/bound.js';
import { DEFAULT_LATENCIES } from '../../bench/sim/latency.js';

const HOLD_MS = 10_000;
/** A lifecycle at the least a draw can be: 1 ms for each of create, attach, detach and delete, plus the hold. */
const LIFECYCLE_MS = 4 + HOLD_MS;

function terms(bound: ReturnType<typeof lowerBound>): Record<string, number> {
  return Object.fromEntries(bound.terms.map((term) => [term.name, term.ms]));
}

describe('the makespan lower bound', () => {
  it("takes each bucket's last token at (demand − capacity) / refill, then the rest of the lifecycle at 1 ms a step", () => {
    const bound = lowerBound(1000, { kind: 'burst' }, HOLD_MS, DEFAULT_LATENCIES);
    expect(terms(bound)).toEqual({
      // CreateVolume 100 / 5 s⁻¹: the 1000th token at 180 s, then the whole lifecycle.
      'CreateVolume bucket': 180_000 + LIFECYCLE_MS,
      // Mutating 50 / 5 s⁻¹, 2 calls a lifecycle: the 2000th token at 390 s, then detach and delete.
      'mutating bucket (attach+detach)': 390_000 + 2,
      // DeleteVolume 100 / 5 s⁻¹: the 1000th token at 180 s, then the delete.
      'DeleteVolume bucket': 180_000 + 1,
      arrivals: LIFECYCLE_MS,
    });
    expect(bound.ms).toBe(390_002);
    expect(bound.derivation).toMatch(/^mutating bucket \(attach\+detach\): /);
  });

  it('waits for no token within the buckets’ capacities', () => {
    const bound = lowerBound(25, { kind: 'burst' }, HOLD_MS, DEFAULT_LATENCIES);
    expect(terms(bound)).toEqual({
      'CreateVolume bucket': LIFECYCLE_MS,
      'mutating bucket (attach+detach)': 2,
      'DeleteVolume bucket': 1,
      arrivals: LIFECYCLE_MS,
    });
    expect(bound.ms).toBe(LIFECYCLE_MS);
  });

  it('starts no bucket term before the last arrival, at (N − 1) / rate', () => {
    const slow = lowerBound(100, { kind: 'steady', perSecond: 1 }, HOLD_MS, DEFAULT_LATENCIES);
    expect(terms(slow)).toEqual({
      'CreateVolume bucket': 99_000 + LIFECYCLE_MS,
      'mutating bucket (attach+detach)': 99_000 + 2,
      'DeleteVolume bucket': 99_000 + 1,
      arrivals: 99_000 + LIFECYCLE_MS,
    });
    expect(slow.ms).toBe(99_000 + LIFECYCLE_MS);

    const fast = lowerBound(1000, { kind: 'steady', perSecond: 10 }, HOLD_MS, DEFAULT_LATENCIES);
    expect(terms(fast)['CreateVolume bucket']).toBe(180_000 + LIFECYCLE_MS);
    expect(terms(fast).arrivals).toBe(99_900 + LIFECYCLE_MS);
    expect(fast.ms).toBe(390_002);
  });
});
