/**
 * What `npm run bench:cpu` prints from its measurements, as BENCHMARKS.md reads it: CPU time per
 * record and per lifecycle, stretched by the share of a vCPU each function's memory buys
 * (memory / 1769 MiB), billed at the Arm duration price the stack deploys ($0.0000133334 per GB-s),
 * and what a full executor batch of 100 messages spends (~1 s at 5.6 ms per message).
 */
import { describe, expect, it } from 'vitest';
import { formatCpuReport, type CpuReport } from '../../bench/cpu.js';

const ARM_PER_GB_SECOND = 0.0000133334;

/** GB-seconds per 1000 lifecycles, and their price, of `cpuMsPerLifecycle` at `memoryMiB`. */
function billed(cpuMsPerLifecycle: number, memoryMiB: number): string {
  const wallSeconds = (cpuMsPerLifecycle * 1000) / (memoryMiB / 1769) / 1000;
  const gbSeconds = wallSeconds * (memoryMiB / 1024);
  return `${gbSeconds.toFixed(1)} | ${(gbSeconds * ARM_PER_GB_SECOND).toFixed(5)}`;
}

/** 100 lifecycles at the figures BENCHMARKS.md gives: 3.6 ms a stream record (17 a lifecycle), 5.6 ms a message (7 a lifecycle). */
const MEASURED: CpuReport = {
  lifecycles: 100,
  converged: 100,
  watcher: { invocations: 50, records: 1700, cpuMs: 6120 },
  executor: { invocations: 70, records: 700, cpuMs: 3920 },
  perRequestMs: { ec2DescribeVolumes: 2.2, dynamodbGetItem: 2.5, sqsSendMessageBatch: 3.1 },
  wallMs: 100_000,
};

describe('the function CPU report', () => {
  it('bills each function per 1000 lifecycles at its own memory size, at the Arm duration price', () => {
    const text = formatCpuReport(MEASURED);
    expect(text).toContain(`| watcher | 512 MiB | 50 | 1700 | 6120 | 3.60 | 61.2 | ${billed(61.2, 512)} |`);
    expect(text).toContain(`| executor | 1024 MiB | 70 | 700 | 3920 | 5.60 | 39.2 | ${billed(39.2, 1024)} |`);
  });

  it('gives what a full executor batch of 100 messages spends at 1024 MiB: about 1 s at 5.6 ms a message', () => {
    const text = formatCpuReport(MEASURED);
    // 560 ms of CPU at 1024 / 1769 of a vCPU.
    expect(text).toContain('A full executor batch (100 messages) at 1024 MiB (0.58 vCPU): ~1.0 s of CPU-bound time.');
  });

  it('gives 0 ms per record for a function handed no record, not a division by zero', () => {
    const idle = formatCpuReport({ ...MEASURED, watcher: { invocations: 0, records: 0, cpuMs: 0 }, executor: { invocations: 0, records: 0, cpuMs: 0 } });
    expect(idle).toContain('| watcher | 512 MiB | 0 | 0 | 0 | 0.00 | 0.0 |');
    expect(idle).toContain('| executor | 1024 MiB | 0 | 0 | 0 | 0.00 | 0.0 |');
    expect(idle).toContain('(100 messages) at 1024 MiB (0.58 vCPU): ~0.0 s');
    expect(idle).not.toMatch(/NaN|Infinity/);
  });
});
