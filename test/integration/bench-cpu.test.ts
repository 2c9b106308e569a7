/**
 * `npm run bench:cpu` on a few lifecycles: the real watcher and executor handlers drive them to
 * the end against moto, and the report holds each function's CPU time.
 */
import { expect, it } from 'vitest';
import { formatCpuReport, measureFunctionCpu } from '../../bench/cpu.js';
import { describeWithMoto } from '../support/moto.js';

describeWithMoto('function CPU benchmark on moto', (endpoint) => {
  it('runs every lifecycle to the end through the handlers and reports the CPU each function used', async () => {
    const report = await measureFunctionCpu({ lifecycles: 4, endpoint: endpoint(), requestsPerClient: 5, timeoutMs: 60_000 });
    console.log(formatCpuReport(report));
    expect(report.converged).toBe(4);
    // Each lifecycle passes the watcher (inserts, state changes, removals) and the executor
    // (create, checks, detach, delete) several times over.
    expect(report.watcher.records).toBeGreaterThanOrEqual(4 * 4);
    expect(report.executor.records).toBeGreaterThanOrEqual(4 * 4);
    for (const fn of [report.watcher, report.executor]) {
      expect(fn.invocations).toBeGreaterThan(0);
      expect(fn.cpuMs).toBeGreaterThan(0);
    }
    expect(Object.values(report.perRequestMs).every((ms) => ms > 0)).toBe(true);
  }, 90_000);
});
