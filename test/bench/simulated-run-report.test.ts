/**
 * What a simulated run reports of each design (bench/run.ts, BENCHMARKS.md "What the simulation
 * models"): the architecture its functions are priced at, the client's API requests, the DynamoDB
 * units of the rate budget's table beside the records' table, and the provisioner's fixed cost
 * at rest from one reconciler pass on the emptied table and the mapping's idle pollers.
 */
import { describe, expect, it } from 'vitest';
import type { DesignResult } from '../../bench/report.js';
import { runDesign } from '../../bench/run.js';
import { US_EAST_1_PRICES } from '../../bench/sim/pricing.js';
import type { WorkloadSpec } from '../../bench/workload.js';
import { EXECUTOR, RECONCILER } from '../../lib/settings.js';
import { simulatedProvisioner } from './simulated-provisioner.js';

const burst = (volumes: number): WorkloadSpec => ({ name: 'burst', volumes, arrival: { kind: 'burst' }, holdMs: 1000 });

describe('a simulated run', () => {
  it("prices the provisioner's functions on Arm, as the stack deploys them, and the naive design's at Lambda's default x86_64", async () => {
    const provisioner = await runDesign({ design: 'provisioner', workload: burst(3), seed: 1 });
    const naive = await runDesign({ design: 'naive', workload: burst(3), seed: 1 });
    expect(provisioner.cost.lambdaDuration).toBeCloseTo(provisioner.lambdaGbSeconds * US_EAST_1_PRICES.lambdaArmPerGbSecond, 15);
    expect(naive.cost.lambdaDuration).toBeCloseTo(naive.lambdaGbSeconds * US_EAST_1_PRICES.lambdaX86PerGbSecond, 15);
    expect(provisioner.lambdaGbSeconds).toBeGreaterThan(0);
    expect(naive.lambdaGbSeconds).toBeGreaterThan(0);
  });

  it("bills two API requests per lifecycle when none is throttled: each lifecycle's POST and DELETE", async () => {
    const result = await runDesign({ design: 'provisioner', workload: burst(20), seed: 1 });
    expect(result.converged).toBe(20);
    expect(result.apiThrottling).toEqual({ apiGateway429: 0, lambda500: 0, clientRetries: 0 });
    expect(result.apiGatewayRequests).toBe(40);
  });

  it("meets the stage's throttle in a burst of 150: the first 100 POSTs pass at once, the rest are answered 429 and retried until taken", async () => {
    const result = await runDesign({ design: 'provisioner', workload: burst(150), seed: 1 });
    expect(result.converged).toBe(150);
    const { apiGateway429, lambda500, clientRetries } = result.apiThrottling!;
    expect(apiGateway429).toBeGreaterThanOrEqual(50);
    expect(clientRetries).toBe(apiGateway429 + lambda500);
    expect(result.apiGatewayRequests).toBe(300 + lambda500);
    // The burst keeps every executor the mapping may run busy, and no more.
    expect(result.functions.find((fn) => fn.name === 'executor')?.peakConcurrency).toBe(EXECUTOR.maxConcurrency);
  }, 60_000);

  it("counts every function's invocations and GB-seconds in the run's Lambda usage", async () => {
    const result = await runDesign({ design: 'provisioner', workload: burst(20), seed: 1 });
    expect(result.functions.map((fn) => fn.name)).toEqual(['api', 'watcher', 'executor', 'reconciler']);
    expect(result.functions.find((fn) => fn.name === 'api')?.invocations).toBe(40);
    expect(result.lambdaInvocations).toBe(result.functions.reduce((sum, fn) => sum + fn.invocations, 0));
    expect(result.lambdaGbSeconds).toBeCloseTo(result.functions.reduce((sum, fn) => sum + fn.gbSeconds, 0), 12);
  }, 60_000);

  it('lists each distinct failure reason once, and ends its timeline with the failed lifecycles', async () => {
    // The naive design's burst of 200 fails lifecycles by EC2's throttling, many for the same reason.
    const result = await runDesign({ design: 'naive', workload: burst(200), seed: 1 });
    expect(result.failed).toBeGreaterThan(result.failureReasons.length);
    expect(result.failureReasons.length).toBeGreaterThan(0);
    expect(new Set(result.failureReasons).size).toBe(result.failureReasons.length);
    expect(result.operationsFailedByThrottling).toBeGreaterThan(0);
    expect(result.operationsFailedByThrottling).toBeLessThanOrEqual(result.failed);
    // Its timeline ends with every lifecycle finished or failed.
    expect(result.timeline[result.timeline.length - 1]!.counts).toMatchObject({ failed: result.failed, finished: result.converged, waiting: 0 });
  }, 60_000);

  it("reports the naive design's SDK retries and the throttling errors it was answered, and none for the provisioner", async () => {
    const naive = await runDesign({ design: 'naive', workload: burst(200), seed: 1 });
    // The simulated EC2 answers no other retried error: each RequestLimitExceeded reached the SDK,
    // and each was tried again unless it was the third attempt or the retry quota was spent.
    expect(naive.sdkRetries!.throttlingErrors).toBe(naive.requestLimitExceeded);
    expect(naive.sdkRetries!.retries).toBeGreaterThan(0);
    expect(naive.sdkRetries!.retries).toBeLessThan(naive.sdkRetries!.throttlingErrors);
    const provisioner = await runDesign({ design: 'provisioner', workload: burst(3), seed: 1 });
    expect(provisioner.sdkRetries).toBeUndefined();
  }, 60_000);

  it('prices the fixed cost at rest from one reconciler pass on the emptied table (6 read units, no write) and 5 idle pollers', async () => {
    const result = await runDesign({ design: 'provisioner', workload: burst(20), seed: 1 });
    const standing = result.standingCostPerMonth!;
    expect(standing.idlePollers).toBe(5);
    expect(standing.sqsIdleReceivesPerMonth).toBe(648_000);
    expect(standing.reconcilerInvocationsPerMonth).toBe(8640);
    expect(standing.reconcilerPass.memoryMiB).toBe(RECONCILER.memoryMiB);
    expect(standing.reconcilerPass.dynamodbReadUnits).toBe(6);
    expect(standing.reconcilerPass.dynamodbWriteUnits).toBe(0);
    expect(standing.reconcilerPass.billedMs).toBeGreaterThan(0);
    // Measured apart: the run's own figures leave the pass out.
    const reconcilers = result.functions.filter((fn) => fn.name.startsWith('reconciler'));
    expect(reconcilers.map((fn) => fn.name)).toEqual(['reconciler']);
    expect((await runDesign({ design: 'naive', workload: burst(3), seed: 1 })).standingCostPerMonth).toBeUndefined();
  });

  it('runs by default on 4 stream shards with 1 % of SQS deliveries made twice and one shared EC2 rate budget', async () => {
    const withoutWallTime = ({ wallMs: _wallMs, ...rest }: DesignResult) => rest;
    const byDefault = withoutWallTime(await runDesign({ design: 'provisioner', workload: burst(60), seed: 1 }));
    const asDocumented = withoutWallTime(await runDesign({ design: 'provisioner', workload: burst(60), seed: 1, shards: 4, duplicateRate: 0.01, sharedRateBudget: true }));
    const noDuplicates = withoutWallTime(await runDesign({ design: 'provisioner', workload: burst(60), seed: 1, duplicateRate: 0 }));
    expect(byDefault).toEqual(asDocumented);
    expect(noDuplicates).not.toEqual(byDefault);
  }, 60_000);

  it("counts the rate budget table's units with the records' table's", async () => {
    const { loop, design, seen, requests } = simulatedProvisioner();
    void design.request(requests[0]!);
    await loop.run({ done: () => seen.attached.length > 0, untilMs: loop.now() + 600_000 });
    expect(design.rateBudget.writeUnits).toBeGreaterThan(0);
    expect(design.rateBudget.readUnits).toBeGreaterThan(0);
    expect(design.dynamodbWriteUnits()).toBe(design.store.writeUnits + design.rateBudget.writeUnits);
    expect(design.dynamodbReadUnits()).toBe(design.store.readUnits + design.rateBudget.readUnits);
  });
});
