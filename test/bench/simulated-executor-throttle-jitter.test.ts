/**
 * The simulated executors draw the engine's jitter from the run's seeded PRNG, as a deployed
 * executor draws it at random: the wait after EC2's RequestLimitExceeded is uniform in the
 * engine's `throttleBackoff` range (2–20 s by default), so the volumes refused together are
 * tried again at spread-out times, not all after the same wait.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SimulatedEc2 } from '../../bench/sim/ec2.js';
import { ProviderError } from '../../lib/engine/ports.js';
import { simulatedProvisioner } from './simulated-provisioner.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe("the simulated provisioner's executors", () => {
  it('wait a drawn time within 2–20 s after a throttled CreateVolume, not the same for every volume', async () => {
    const { loop, design, seen, requests } = simulatedProvisioner();
    const createVolume = SimulatedEc2.prototype.createVolume;
    let refusals = 0;
    vi.spyOn(SimulatedEc2.prototype, 'createVolume').mockImplementation(function (this: SimulatedEc2, request) {
      if (refusals < 3 * requests.length) {
        refusals++;
        return Promise.reject(new ProviderError('throttled', 'RequestLimitExceeded', 'Request limit exceeded.'));
      }
      return createVolume.call(this, request);
    });
    const waitsMs: number[] = [];
    design.memoryStore.onChange((change) => {
      const status = change.newRecord?.status;
      if (change.newRecord?.kind === 'volume' && status?.nextAttemptAt && status.nextAttemptAt !== change.oldRecord?.status.nextAttemptAt) {
        waitsMs.push(Date.parse(status.nextAttemptAt) - Date.parse(status.updatedAt));
      }
    });
    for (const request of requests) void design.request(request);
    await loop.run({ done: () => seen.attached.length === requests.length, untilMs: loop.now() + 3600_000 });

    expect(seen.attached).toHaveLength(requests.length);
    expect(waitsMs.length).toBeGreaterThanOrEqual(3 * requests.length);
    for (const wait of waitsMs) {
      expect(wait).toBeGreaterThanOrEqual(2000);
      expect(wait).toBeLessThanOrEqual(20_000);
    }
    expect(new Set(waitsMs).size).toBeGreaterThan(2);
  });
});
