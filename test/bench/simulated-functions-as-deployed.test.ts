/**
 * The simulated provisioner's four functions are sized as the stack deploys them
 * (infra/constructs/functions.ts takes each function's timeout and memory from lib/settings.ts;
 * infra/stack.ts reserves the executor's mapping maximum and the reconciler's 1): a function's
 * timeout caps the duration it is billed for and tells the handler the time it has left, so each
 * must be its own.
 */
import { describe, expect, it } from 'vitest';
import { CPU_MS_PER_ITEM, UNRESERVED_CONCURRENCY } from '../../bench/provisioner.js';
import { API, EXECUTOR, RECONCILER, WATCHER } from '../../lib/settings.js';
import { simulatedProvisioner } from './simulated-provisioner.js';

describe("the simulated provisioner's functions", () => {
  it('each take the timeout and memory the stack deploys them with', () => {
    const { design } = simulatedProvisioner();
    const sizing = design.functions().map((fn) => ({ name: fn.name, timeoutMs: fn.timeoutMs, memoryMiB: fn.memoryMiB }));
    expect(sizing).toEqual([
      { name: 'api', timeoutMs: API.timeoutSeconds * 1000, memoryMiB: API.memoryMiB },
      { name: 'watcher', timeoutMs: WATCHER.timeoutSeconds * 1000, memoryMiB: WATCHER.memoryMiB },
      { name: 'executor', timeoutMs: EXECUTOR.timeoutSeconds * 1000, memoryMiB: EXECUTOR.memoryMiB },
      { name: 'reconciler', timeoutMs: RECONCILER.timeoutSeconds * 1000, memoryMiB: RECONCILER.memoryMiB },
    ]);
    // As BENCHMARKS.md states them.
    expect(sizing.map((fn) => [fn.name, fn.timeoutMs / 1000, fn.memoryMiB])).toEqual([
      ['api', 10, 512],
      ['watcher', 60, 512],
      ['executor', 120, 1024],
      ['reconciler', 240, 512],
    ]);
  });

  it("run at most the executor's mapping maximum and one reconciler pass at once; the API within the unreserved pool, the watcher unbounded", () => {
    const { design } = simulatedProvisioner();
    expect(design.executorFunction.maxConcurrency).toBe(EXECUTOR.maxConcurrency);
    expect(design.reconcilerFunction.maxConcurrency).toBe(1);
    expect(design.apiFunction.maxConcurrency).toBe(UNRESERVED_CONCURRENCY);
    expect(design.watcherFunction.maxConcurrency).toBe(Number.POSITIVE_INFINITY);
  });

  it('spend CPU time per stream record in the watcher and per message in the executor only', () => {
    const { design } = simulatedProvisioner();
    expect(design.functions().map((fn) => [fn.name, fn.cpuMsPerItem])).toEqual([
      ['api', 0],
      ['watcher', CPU_MS_PER_ITEM.watcher],
      ['executor', CPU_MS_PER_ITEM.executor],
      ['reconciler', 0],
    ]);
  });
});
