/**
 * Each simulated executor invocation claims records under an owner of its own, as each deployed
 * invocation does (the executor's default owner is a fresh UUID per run): a claim one invocation
 * holds must not read as held by another running beside it.
 */
import { describe, expect, it } from 'vitest';
import { simulatedProvisioner } from './simulated-provisioner.js';

describe("the simulated provisioner's executor invocations", () => {
  it('claim under owners of their own, no more owners than invocations', async () => {
    const { loop, design, seen, requests } = simulatedProvisioner();
    // The claims the executor writes, by a claim call or with the write before its EC2 call.
    const owners = new Set<string>();
    design.memoryStore.onChange((change) => {
      const owner = change.newRecord?.claim?.owner;
      if (owner) owners.add(owner);
    });
    for (const request of requests) void design.request(request);
    await loop.run({ done: () => seen.attached.length === requests.length, untilMs: loop.now() + 600_000 });

    expect(seen.attached).toHaveLength(requests.length);
    // Three lifecycles' creates and attaches come in more than one invocation.
    expect(design.executorFunction.invocations).toBeGreaterThan(1);
    expect(owners.size).toBeGreaterThan(1);
    expect(owners.size).toBeLessThanOrEqual(design.executorFunction.invocations);
  });
});
