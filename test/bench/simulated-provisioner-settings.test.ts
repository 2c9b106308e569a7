/**
 * The figures the simulated provisioner is deployed with, as BENCHMARKS.md states them, and what
 * its metrics and log keep.
 */
import { describe, expect, it } from 'vitest';
import {
  API_GATEWAY_ACCOUNT_THROTTLE,
  CPU_MS_PER_ITEM,
  CountingMetrics,
  QuietLog,
  RESERVED_CONCURRENCY,
  UNRESERVED_CONCURRENCY,
} from '../../bench/provisioner.js';
import { EXECUTOR } from '../../lib/settings.js';

describe('the simulated provisioner as deployed', () => {
  it('spends the CPU time `npm run bench:cpu` measured: 3.6 ms per stream record, 5.6 ms per message', () => {
    expect(CPU_MS_PER_ITEM).toEqual({ watcher: 3.6, executor: 5.6 });
  });

  it("meets API Gateway's account throttle of 10 000 requests per second with a burst of 5 000", () => {
    expect(API_GATEWAY_ACCOUNT_THROTTLE).toEqual({ ratePerSecond: 10_000, burst: 5_000 });
  });

  it("leaves the API and the watcher the account's 1 000 less the executor's maximum concurrency and the reconciler's 1", () => {
    expect(RESERVED_CONCURRENCY).toBe(EXECUTOR.maxConcurrency + 1);
    expect(RESERVED_CONCURRENCY).toBe(6);
    expect(UNRESERVED_CONCURRENCY).toBe(994);
  });
});

describe("the simulated provisioner's metrics and log", () => {
  it('count each operation outcome once per event, and each counter by the value given (1 when none)', () => {
    const metrics = new CountingMetrics();
    metrics.operation({ operation: 'create-volume', outcome: 'succeeded', latencyMs: 5 });
    metrics.operation({ operation: 'create-volume', outcome: 'succeeded' });
    metrics.operation({ operation: 'create-volume', outcome: 'failed' });
    metrics.count('LeakedVolumes');
    metrics.count('LeakedVolumes', 3);
    expect(Object.fromEntries(metrics.operations)).toEqual({ 'create-volume/succeeded': 2, 'create-volume/failed': 1 });
    expect(Object.fromEntries(metrics.counters)).toEqual({ LeakedVolumes: 4 });
  });

  it('counts every warning and error, keeps the first 20 of them in order, and drops debug and info', () => {
    const log = new QuietLog();
    log.debug();
    log.info();
    for (let i = 0; i < 15; i++) log.warn(`warning ${i}`);
    for (let i = 0; i < 10; i++) log.error(`error ${i}`, { i });
    expect(log.warnings).toBe(15);
    expect(log.errors).toBe(10);
    expect(log.samples).toHaveLength(20);
    expect(log.samples[0]).toBe('warn: warning 0 ');
    expect(log.samples[14]).toBe('warn: warning 14 ');
    expect(log.samples[15]).toBe('error: error 0 {"i":0}');
    expect(log.samples[19]).toBe('error: error 4 {"i":4}');
  });
});
