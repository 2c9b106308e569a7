/**
 * The simulated API function runs the project's `VolumeService` on the simulation's clock, as
 * the engine does (BENCHMARKS.md, "What the simulation models": the clock of the code under test
 * is the event loop's): the records a POST writes are stamped with the virtual time of the request.
 */
import { describe, expect, it } from 'vitest';
import { simulatedProvisioner } from './simulated-provisioner.js';

describe("the simulated provisioner's API", () => {
  it('stamps the records a POST writes with the virtual time it ran at', async () => {
    const { loop, design, requests } = simulatedProvisioner();
    const askedAt = loop.now() + 90_000;
    loop.after(90_000, () => void design.request(requests[0]!));
    await loop.run({ done: () => design.memoryStore.all().length === 2 });
    const written = loop.now();
    expect(written).toBeGreaterThanOrEqual(askedAt);
    const records = design.memoryStore.all();
    expect(records.map((record) => record.kind).sort()).toEqual(['attachment', 'volume']);
    for (const record of records) {
      expect(Date.parse(record.createdAt)).toBeGreaterThanOrEqual(askedAt);
      expect(Date.parse(record.createdAt)).toBeLessThanOrEqual(written);
      expect(Date.parse(record.status.updatedAt)).toBeGreaterThanOrEqual(askedAt);
    }
  });
});
