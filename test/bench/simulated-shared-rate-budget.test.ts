/**
 * The simulated provisioner's shared EC2 rate budget (bench/provisioner.ts): with it, the API
 * reads it for the waits it shows, the executors take their tokens from it and the reconciler
 * reads its lines; without it (`--rate-budget share`), none of them touches it.
 */
import { describe, expect, it } from 'vitest';
import { RECONCILER } from '../../lib/settings.js';
import { simulatedProvisioner } from './simulated-provisioner.js';

async function oneLifecycleAttached(sharedRateBudget: boolean) {
  const { loop, design, seen, requests } = simulatedProvisioner(1, sharedRateBudget);
  let taken = false;
  void design.request(requests[0]!).then(() => (taken = true));
  await loop.run({ done: () => taken });
  const afterRequest = { reads: design.rateBudget.readUnits, writes: design.rateBudget.writeUnits };
  await loop.run({ done: () => seen.attached.length > 0, untilMs: loop.now() + 600_000 });
  expect(seen.attached).toEqual([requests[0]!.id]);
  return { afterRequest, afterAttach: { reads: design.rateBudget.readUnits, writes: design.rateBudget.writeUnits } };
}

async function oneReconcilerPass(sharedRateBudget: boolean) {
  const { loop, design } = simulatedProvisioner(1, sharedRateBudget);
  let stopped = false;
  design.startSchedules(() => stopped);
  await loop.run({ untilMs: loop.now() + RECONCILER.intervalMinutes * 60_000 + 60_000 });
  stopped = true;
  expect(design.reconcilerReport().passes).toBe(1);
  return { reads: design.rateBudget.readUnits, writes: design.rateBudget.writeUnits };
}

describe("the simulated provisioner's shared EC2 rate budget", () => {
  it("is read by the API for a new volume's wait, taken from by the executors, and read by the reconciler's pass", async () => {
    const { afterRequest, afterAttach } = await oneLifecycleAttached(true);
    expect(afterRequest.reads).toBeGreaterThan(0);
    expect(afterRequest.writes).toBe(0);
    expect(afterAttach.writes).toBeGreaterThan(0);
    const pass = await oneReconcilerPass(true);
    expect(pass.reads).toBeGreaterThan(0);
    expect(pass.writes).toBe(0);
  });

  it('is left alone by the API, the executors and the reconciler when each executor keeps its own share', async () => {
    const { afterRequest, afterAttach } = await oneLifecycleAttached(false);
    expect(afterRequest).toEqual({ reads: 0, writes: 0 });
    expect(afterAttach).toEqual({ reads: 0, writes: 0 });
    expect(await oneReconcilerPass(false)).toEqual({ reads: 0, writes: 0 });
  });
});
