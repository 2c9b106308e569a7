import { describe, expect, it, vi } from 'vitest';
import { EventLoop } from '../../bench/sim/event-loop.js';
import { DEFAULT_LATENCIES, Lognormal, normalQuantile } from '../../bench/sim/latency.js';
import { Random } from '../../bench/sim/random.js';
import { EC2_ACTION_BUCKET, EC2_REQUEST_LIMITS, Ec2RateLimiter, TokenBucket } from '../../bench/sim/token-bucket.js';
import { SDK_RETRY, StandardRetry, waiterDelayMs } from '../../bench/naive/sdk.js';
import { ConditionFailedError, ProviderError } from '../../lib/engine/ports.js';
import { MUTATING_ACTIONS, RATE_BUCKET_OF } from '../../lib/engine/config.js';
import { formatCpuReport, type CpuReport } from '../../bench/cpu.js';
import { MeteredRecordStore } from '../../bench/sim/dynamodb.js';
import { ADAPTER_DESCRIBES, SDK_WAITER_DESCRIBES } from '../../bench/sim/ec2.js';
import { MemoryRecordStore } from '../../lib/memory/index.js';
import { newAttachmentRecord } from '../../lib/api/service.js';
import { newVolume } from '../unit/engine-fixtures.js';
import { MIB_PER_VCPU, SimulatedFunction, lambdaCpuCost } from '../../bench/sim/lambda.js';
import { ApiGatewayThrottles } from '../../bench/sim/api-gateway.js';
import { API_GATEWAY_ACCOUNT_THROTTLE } from '../../bench/provisioner.js';
import { API, EXECUTOR } from '../../lib/settings.js';
import { SimulatedQueue, type Delivery } from '../../bench/sim/sqs.js';
import { runDesign } from '../../bench/run.js';
import { Executor, type ExecutorBatchItem, type ExecutorRunOptions } from '../../lib/engine/executor.js';
import type { OperationMessage } from '../../lib/engine/ports.js';

const T0 = Date.UTC(2026, 0, 1);

describe('token bucket', () => {
  it('admits exactly its capacity at once, then refuses', () => {
    const bucket = new TokenBucket(50, 5, T0);
    const admitted = Array.from({ length: 60 }, () => bucket.tryTake(T0)).filter(Boolean).length;
    expect(admitted).toBe(50);
    expect(bucket.refused).toBe(10);
  });

  it('refills at exactly its rate and never above its capacity', () => {
    const bucket = new TokenBucket(100, 5, T0);
    for (let i = 0; i < 100; i++) expect(bucket.tryTake(T0)).toBe(true);
    expect(bucket.tryTake(T0 + 199)).toBe(false); // 0.995 tokens after 199 ms
    expect(bucket.tryTake(T0 + 200)).toBe(true); // the first whole token at 200 ms
    expect(bucket.available(T0 + 200 + 10_000)).toBe(50);
    expect(bucket.available(T0 + 200 + 60_000)).toBe(100);
    // Sustained: 5 per second after the burst, over a minute.
    const sustained = new TokenBucket(100, 5, T0);
    let admitted = 0;
    for (let ms = 0; ms <= 60_000; ms += 10) {
      while (sustained.tryTake(T0 + ms)) admitted++;
    }
    expect(admitted).toBe(100 + 60 * 5);
  });

  it('uses the documented bucket of each EC2 action', () => {
    expect(EC2_REQUEST_LIMITS.CreateVolume).toEqual({ capacity: 100, refillPerSecond: 5 });
    expect(EC2_REQUEST_LIMITS.DeleteVolume).toEqual({ capacity: 100, refillPerSecond: 5 });
    expect(EC2_REQUEST_LIMITS.CreateTags).toEqual({ capacity: 100, refillPerSecond: 10 });
    expect(EC2_REQUEST_LIMITS.mutating).toEqual({ capacity: 50, refillPerSecond: 5 });
    expect(EC2_REQUEST_LIMITS.unfilteredNonMutating).toEqual({ capacity: 50, refillPerSecond: 10 });
    expect(EC2_REQUEST_LIMITS.nonMutating).toEqual({ capacity: 100, refillPerSecond: 20 });
    expect(EC2_ACTION_BUCKET.AttachVolume).toBe('mutating');
    expect(EC2_ACTION_BUCKET.DetachVolume).toBe('mutating');
    expect(EC2_ACTION_BUCKET.DescribeVolumes).toBe('unfilteredNonMutating');
    // CreateTags and DeleteTags are uncategorized actions, each with a bucket of its own.
    expect(EC2_ACTION_BUCKET.CreateTags).toBe('CreateTags');
    expect(EC2_ACTION_BUCKET.DeleteTags).toBe('DeleteTags');
    expect(EC2_REQUEST_LIMITS.DeleteTags).toEqual({ capacity: 100, refillPerSecond: 10 });
  });

  it("groups the engine's rate buckets as the simulated EC2 meters them, so the executor's tokens match the calls it makes", () => {
    for (const action of MUTATING_ACTIONS) {
      // The engine budgets DeleteTags with AttachVolume (the smaller 50 / 5 mutating bucket), where
      // EC2 gives DeleteTags its own 100 / 10 bucket: the engine spends attach tokens on it, so it can
      // never overrun DeleteTags' bucket, only slow attaches. Every other action is grouped as EC2 does.
      if (action === 'DeleteTags') {
        const engine = EC2_REQUEST_LIMITS[EC2_ACTION_BUCKET[RATE_BUCKET_OF[action]]];
        expect(engine.capacity).toBeLessThanOrEqual(EC2_REQUEST_LIMITS.DeleteTags.capacity);
        expect(engine.refillPerSecond).toBeLessThanOrEqual(EC2_REQUEST_LIMITS.DeleteTags.refillPerSecond);
        continue;
      }
      expect([action, EC2_ACTION_BUCKET[action]]).toEqual([action, EC2_ACTION_BUCKET[RATE_BUCKET_OF[action]]]);
    }
  });

  it('meters DeleteTags and CreateTags each in a bucket of its own, apart from attach and detach', () => {
    const limiter = new Ec2RateLimiter(T0);
    for (let i = 0; i < 100; i++) expect(limiter.admit('DeleteTags', T0)).toBe(true);
    expect(limiter.admit('DeleteTags', T0)).toBe(false);
    expect(limiter.admit('AttachVolume', T0)).toBe(true);
    for (let i = 0; i < 100; i++) expect(limiter.admit('CreateTags', T0)).toBe(true);
    expect(limiter.admit('CreateTags', T0)).toBe(false);
    expect(limiter.admit('CreateTags', T0 + 100)).toBe(true);
  });

  it("meters the adapter's describes (by filter, 200 values, paginated) in the standard non-mutating bucket, a waiter's by id in the unfiltered one", () => {
    expect(ADAPTER_DESCRIBES).toEqual({ idsPerRequest: 200, bucket: 'nonMutating' });
    expect(SDK_WAITER_DESCRIBES.bucket).toBe('unfilteredNonMutating');
    const limiter = new Ec2RateLimiter(T0);
    for (let i = 0; i < 100; i++) expect(limiter.admit('DescribeVolumes', T0, ADAPTER_DESCRIBES.bucket)).toBe(true);
    expect(limiter.admit('DescribeVolumes', T0, ADAPTER_DESCRIBES.bucket)).toBe(false);
    // The unfiltered bucket is apart and still full.
    for (let i = 0; i < 50; i++) expect(limiter.admit('DescribeVolumes', T0)).toBe(true);
    expect(limiter.admit('DescribeVolumes', T0)).toBe(false);
  });

  it('shares the mutating bucket between attach and detach, and keeps other buckets apart', () => {
    const limiter = new Ec2RateLimiter(T0);
    for (let i = 0; i < 25; i++) expect(limiter.admit('AttachVolume', T0)).toBe(true);
    for (let i = 0; i < 25; i++) expect(limiter.admit('DetachVolume', T0)).toBe(true);
    expect(limiter.admit('AttachVolume', T0)).toBe(false);
    expect(limiter.admit('CreateVolume', T0)).toBe(true);
    expect(limiter.admit('DescribeVolumes', T0)).toBe(true);
  });
});

describe('API Gateway throttles', () => {
  it("gives each method of the stage a bucket of its own at the stage's rate and burst, as API Gateway applies a stage's limits per method", () => {
    const stage = { ratePerSecond: API.throttleRatePerSecond, burst: API.throttleBurst };
    expect(stage).toEqual({ ratePerSecond: 50, burst: 100 });
    const throttles = new ApiGatewayThrottles(API_GATEWAY_ACCOUNT_THROTTLE, stage, T0);
    for (let i = 0; i < 100; i++) expect(throttles.admit('POST /volumes', T0)).toBe(true);
    expect(throttles.admit('POST /volumes', T0)).toBe(false);
    // The POSTs' burst spent leaves the DELETEs' bucket full.
    for (let i = 0; i < 100; i++) expect(throttles.admit('DELETE /volumes/{id}', T0)).toBe(true);
    expect(throttles.admit('DELETE /volumes/{id}', T0)).toBe(false);
    // Each refills at 50 a second: one token every 20 ms.
    expect(throttles.admit('POST /volumes', T0 + 19)).toBe(false);
    expect(throttles.admit('POST /volumes', T0 + 20)).toBe(true);
    expect(throttles.admit('DELETE /volumes/{id}', T0 + 20)).toBe(true);
    expect(throttles.admit('POST /volumes', T0 + 20)).toBe(false);
  });

  it("refuses every method once the account's bucket, shared by them all, is empty", () => {
    const throttles = new ApiGatewayThrottles({ ratePerSecond: 1, burst: 2 }, { ratePerSecond: 50, burst: 100 }, T0);
    expect(throttles.admit('POST /volumes', T0)).toBe(true);
    expect(throttles.admit('DELETE /volumes/{id}', T0)).toBe(true);
    expect(throttles.admit('GET /volumes/{id}', T0)).toBe(false);
    expect(throttles.admit('POST /volumes', T0 + 1000)).toBe(true);
  });
});

describe('latency model', () => {
  function quantiles(distribution: Lognormal, seed: number, n = 20_000): { median: number; p99: number } {
    const random = new Random(seed);
    const draws = Array.from({ length: n }, () => distribution.sample(random)).sort((a, b) => a - b);
    return { median: draws[Math.floor(n / 2)]!, p99: draws[Math.floor(n * 0.99)]! };
  }

  it.each([
    ['CreateVolume → available', DEFAULT_LATENCIES.createVolume, 1500, 4000],
    ['attach', DEFAULT_LATENCIES.attach, 2000, 4000],
    ['detach', DEFAULT_LATENCIES.detach, 2000, 4000],
    ['delete', DEFAULT_LATENCIES.deleteVolume, 1000, 2000],
  ])('%s has the specified median and p99 within 5 percent', (_name, distribution, median, p99) => {
    const measured = quantiles(distribution, 42);
    console.log(`${_name}: median ${measured.median} ms (spec ${median}), p99 ${measured.p99} ms (spec ${p99})`);
    expect(Math.abs(measured.median - median) / median).toBeLessThan(0.05);
    expect(Math.abs(measured.p99 - p99) / p99).toBeLessThan(0.05);
  });

  it('keeps attach and detach within 1–4 s between p1 and p99', () => {
    expect(DEFAULT_LATENCIES.attach.quantile(0.01)).toBeCloseTo(1000, -1);
    expect(DEFAULT_LATENCIES.attach.quantile(0.99)).toBeCloseTo(4000, -1);
    expect(normalQuantile(0.5)).toBeCloseTo(0, 9);
    expect(normalQuantile(0.99)).toBeCloseTo(2.3263478740408408, 6);
  });

  it('gives the same draws for the same seed and different ones for another seed', () => {
    const a = new Random(7);
    const b = new Random(7);
    const c = new Random(8);
    const drawsA = Array.from({ length: 5 }, () => DEFAULT_LATENCIES.createVolume.sample(a));
    expect(Array.from({ length: 5 }, () => DEFAULT_LATENCIES.createVolume.sample(b))).toEqual(drawsA);
    expect(Array.from({ length: 5 }, () => DEFAULT_LATENCIES.createVolume.sample(c))).not.toEqual(drawsA);
  });

  it('rejects a p99 below the median, naming the field', () => {
    expect(() => new Lognormal(100, 50)).toThrow(/p99Ms/);
  });
});

describe('event loop', () => {
  it('runs await chains in virtual time, in order, without real waiting', async () => {
    const loop = new EventLoop(T0);
    const seen: string[] = [];
    const worker = async (name: string, delays: number[]) => {
      for (const delay of delays) {
        await loop.clock.sleep(delay);
        seen.push(`${name}@${loop.now() - T0}`);
      }
    };
    // An hour of virtual time passes with no real timer set: the sleeps are the loop's events.
    const timers = [vi.spyOn(globalThis, 'setTimeout'), vi.spyOn(globalThis, 'setInterval')];
    try {
      void worker('a', [1000, 1000, 3_600_000]);
      void worker('b', [1500, 0, 500]);
      expect(await loop.run()).toBe('idle');
      for (const timer of timers) expect(timer).not.toHaveBeenCalled();
    } finally {
      for (const timer of timers) timer.mockRestore();
    }
    expect(loop.now() - T0).toBe(3_602_000);
    expect(seen).toEqual(['a@1000', 'b@1500', 'b@1500', 'a@2000', 'b@2000', 'a@3602000']);
  });
});

describe('SDK behaviour the naive design reproduces', () => {
  it('retries throttling at most twice, waiting below 1 s then below 2 s', async () => {
    const loop = new EventLoop(T0);
    const retry = new StandardRetry(loop.clock, new Random(1));
    const calls: number[] = [];
    const outcome = retry
      .call(async () => {
        calls.push(loop.now() - T0);
        throw new ProviderError('throttled', 'RequestLimitExceeded', 'Request limit exceeded.');
      })
      .catch((error: unknown) => error);
    await loop.run();
    expect(await outcome).toBeInstanceOf(ProviderError);
    expect(calls).toHaveLength(SDK_RETRY.maxAttempts);
    expect(calls[1]! - calls[0]!).toBeLessThan(1000);
    expect(calls[2]! - calls[1]!).toBeLessThan(2000);
  });

  it('schedules waiter polls between 15 s and the growing cap, then 120 s', () => {
    const random = new Random(3);
    const far = Number.MAX_SAFE_INTEGER;
    expect(waiterDelayMs(1, 0, far, random)).toBe(15_000);
    const second = waiterDelayMs(2, 0, far, random);
    expect(second).toBeGreaterThanOrEqual(15_000);
    expect(second).toBeLessThanOrEqual(30_000);
    expect(waiterDelayMs(5, 0, far, random)).toBe(120_000);
    expect(waiterDelayMs(2, 0, 10_000, random)).toBe(9_500);
  });
});

describe('function CPU time in Lambda', () => {
  it('scales wall time with the share of a vCPU that the memory buys, and bills the same GB-seconds below one vCPU', () => {
    const half = lambdaCpuCost(100, MIB_PER_VCPU / 2);
    expect(half.vcpu).toBeCloseTo(0.5, 10);
    expect(half.wallMs).toBeCloseTo(200, 10);
    const quarter = lambdaCpuCost(100, MIB_PER_VCPU / 4);
    expect(quarter.wallMs).toBeCloseTo(400, 10);
    expect(quarter.gbSeconds).toBeCloseTo(half.gbSeconds, 10);
    expect(half.gbSeconds).toBeCloseTo((0.2 * MIB_PER_VCPU) / 2 / 1024, 10);
    // Above one vCPU more memory buys no more speed for single-threaded work, only a larger bill.
    const large = lambdaCpuCost(100, 2 * MIB_PER_VCPU);
    expect(large.vcpu).toBe(1);
    expect(large.wallMs).toBe(100);
    expect(large.gbSeconds).toBeCloseTo(0.1 * (2 * MIB_PER_VCPU) / 1024, 10);
  });
});

describe('simulated Lambda function', () => {
  it('spends its items\' CPU time first, stretched by the vCPU share its memory buys, and bills it', async () => {
    const loop = new EventLoop(T0);
    // 5.6 ms per message at 1024 MiB (0.579 vCPU): 10 messages take ceil(56 / 0.579) = 97 ms.
    const fn = new SimulatedFunction(loop, 'executor', 1024, 5, 120_000, 5.6);
    let handlerStartedAt = 0;
    const done = fn.invoke(async () => {
      handlerStartedAt = loop.now();
      await loop.clock.sleep(200); // the invocation's waits for AWS
    }, 10);
    await loop.run();
    await done;
    expect(handlerStartedAt - T0).toBe(97);
    expect(fn.billedMs).toBe(297);
    expect(fn.gbSeconds).toBeCloseTo(0.297, 10);
    // Half the memory: twice the CPU wall time, the same GB-seconds for it.
    const small = new SimulatedFunction(loop, 'executor', 512, 5, 120_000, 5.6);
    const second = small.invoke(async () => undefined, 10);
    await loop.run();
    await second;
    expect(small.billedMs).toBe(Math.ceil(56 / (512 / MIB_PER_VCPU)));
    expect(small.gbSeconds).toBeCloseTo(lambdaCpuCost(56, 512).gbSeconds, 2);
  });

  it('spends no CPU time without items or without a CPU cost per item', async () => {
    const loop = new EventLoop(T0);
    const withCost = new SimulatedFunction(loop, 'watcher', 512, 1, 60_000, 3.6);
    const without = new SimulatedFunction(loop, 'naive', 128, 1, 60_000);
    const runs = [withCost.invoke(async () => undefined), without.invoke(async () => undefined, 100)];
    await loop.run();
    await Promise.all(runs);
    expect([withCost.billedMs, without.billedMs]).toEqual([1, 1]);
  });

  it('retries a throttled asynchronous event 1 s after its attempt, then at intervals doubling to 5 minutes, not the moment a slot frees', async () => {
    const loop = new EventLoop(T0);
    const fn = new SimulatedFunction(loop, 'naive', 128, 1, 900_000);
    const started: number[] = [];
    const event = (ms: number) => async () => {
      started.push(loop.now() - T0);
      await loop.clock.sleep(ms);
    };
    // The first holds the only slot for 2.5 s: the second is throttled at 0 and 1 s, and runs at its next retry, 3 s.
    void fn.invokeAsync(event(2_500));
    void fn.invokeAsync(event(0));
    await loop.run();
    expect(started).toEqual([0, 3_000]);
    expect([fn.throttledEvents, fn.throttledAttempts, fn.expiredEvents]).toEqual([1, 2, 0]);

    // Held for an hour: retries at 1, 3, 7, …, 255, 511 s, then every 300 s (811 s, …, 3 511 s); runs at 3 811 s.
    const long = new EventLoop(T0);
    const held = new SimulatedFunction(long, 'naive', 128, 1, 3_600_000);
    const at: number[] = [];
    void held.invokeAsync(async () => long.clock.sleep(3_600_000));
    void held.invokeAsync(async () => void at.push(long.now() - T0));
    await long.run();
    expect(at).toEqual([3_811_000]);
    expect(held.throttledAttempts).toBe(10 + 10);
  });

  it('drops a throttled asynchronous event whose next retry would pass the maximum event age', async () => {
    const loop = new EventLoop(T0);
    const fn = new SimulatedFunction(loop, 'naive', 128, 1, 900_000);
    let ran = 0;
    void fn.invokeAsync(async () => loop.clock.sleep(10_000));
    void fn.invokeAsync(async () => void ran++, 5_000);
    await loop.run();
    // Throttled at 0, 1 s and 3 s; the next retry, at 7 s, would pass the 5 s age.
    expect([ran, fn.throttledAttempts, fn.expiredEvents, fn.invocations]).toEqual([0, 3, 1, 1]);
  });
});

describe('function CPU report', () => {
  const report = (converged: number): CpuReport => ({
    lifecycles: 10,
    converged,
    watcher: { invocations: 4, records: 200, cpuMs: 600 },
    executor: { invocations: 5, records: 80, cpuMs: 400 },
    perRequestMs: { ec2DescribeVolumes: 2, dynamodbGetItem: 1.5, sqsSendMessageBatch: 2.5 },
    wallMs: 12_000,
  });

  it('gives CPU per record and per lifecycle, and the GB-seconds and price that come to per 1000 lifecycles', () => {
    const text = formatCpuReport(report(10));
    // Watcher: 600 ms over 200 records and 10 lifecycles; 60 ms at 512 MiB is 60 / (512 / 1769) ms.
    const watcherGbSeconds = lambdaCpuCost(60 * 1000, 512).gbSeconds;
    expect(text).toContain(`| watcher | 512 MiB | 4 | 200 | 600 | 3.00 | 60.0 | ${watcherGbSeconds.toFixed(1)} |`);
    expect(text).toContain('| executor | 1024 MiB | 5 | 80 | 400 | 5.00 | 40.0 |');
    expect(text).toContain('EC2 DescribeVolumes 2.00 ms, DynamoDB GetItem 1.50 ms, SQS SendMessageBatch (10) 2.50 ms');
  });

  it('leaves the per-lifecycle columns out when some lifecycles did not end', () => {
    const text = formatCpuReport(report(7));
    expect(text).toContain('lifecycles: 7 of 10 converged');
    expect(text).toContain('| watcher | 512 MiB | 4 | 200 | 600 | 3.00 | n/a | n/a | n/a |');
  });
});

describe('metered DynamoDB table', () => {
  it("charges the instance index a write unit for each change to an attachment item, none for volumes or failed conditions", async () => {
    const loop = new EventLoop(T0);
    const store = new MeteredRecordStore(loop, new Random(1), new MemoryRecordStore(), DEFAULT_LATENCIES.dynamodbRequest);
    const now = new Date(T0).toISOString();
    const volume = newVolume('v-1', { createdAt: now }, { sizeGiB: 8 });
    const attachment = newAttachmentRecord(volume, 'i-1', now);
    const key = { kind: 'attachment' as const, volumeId: 'v-1', instanceId: 'i-1' };
    const work = (async () => {
      await store.create(volume);
      await store.create(attachment);
      await store.update(key, { life: 'dying' });
      await expect(store.update(key, { life: 'dying' }, { version: 1 })).rejects.toBeInstanceOf(ConditionFailedError);
      await store.remove(key);
    })();
    await loop.run({ done: () => false, untilMs: T0 + 60_000 });
    await work;
    expect(store.tableWriteUnits).toBe(5);
    expect(store.indexWriteUnits).toBe(3);
    expect(store.writeUnits).toBe(8);
  });

  it('charges a query of the instance index and a scan page half the read units of a consistent query, as they are eventually consistent', async () => {
    const loop = new EventLoop(T0);
    const store = new MeteredRecordStore(loop, new Random(1), new MemoryRecordStore(), DEFAULT_LATENCIES.dynamodbRequest);
    const now = new Date(T0).toISOString();
    const units: number[] = [];
    const work = (async () => {
      for (let i = 0; i < 9; i++) {
        const volume = newVolume(`v-${i}`, { createdAt: now }, { sizeGiB: 8 });
        await store.create(volume);
        await store.create(newAttachmentRecord(volume, 'i-1', now));
      }
      const read = async (query: () => Promise<unknown>) => {
        const before = store.readUnits;
        await query();
        units.push(store.readUnits - before);
      };
      await read(() => store.attachmentsOfVolume('v-0')); // 1 item, strongly consistent
      await read(() => store.attachmentsOfInstance('i-1')); // 9 items: 2 units' worth, eventually consistent
      await read(() => store.list({ limit: 8 })); // 8 items: 1 unit's worth, eventually consistent
    })();
    await loop.run({ done: () => false, untilMs: T0 + 60_000 });
    await work;
    expect(units).toEqual([1, 1, 0.5]);
  });
});

describe('simulated SQS queue and its event source mapping', () => {
  const settings = { batchSize: 10, maxBatchingWindowSeconds: 0, visibilityTimeoutSeconds: 30, maxReceiveCount: 3, duplicateRate: 0, idlePollers: 5 };
  const message: OperationMessage = { op: 'create-volume', key: { kind: 'volume', volumeId: 'v-1' } };

  it('hands each delivery its receive count, one more each time a failed message comes back, and dead-letters it after the last', async () => {
    const loop = new EventLoop(T0);
    const fn = new SimulatedFunction(loop, 'executor', 1024, 5, 120_000);
    const counts: number[] = [];
    const queue = new SimulatedQueue(loop, new Random(1), settings, DEFAULT_LATENCIES.sqsRequest, fn, async (batch: Delivery[]) => {
      counts.push(...batch.map((delivery) => delivery.receiveCount));
      return { failedMessageIds: batch.map((delivery) => delivery.messageId) };
    });
    void queue.send([{ message, delaySeconds: 0 }]);
    await loop.run();
    expect(counts).toEqual([1, 2, 3]);
    expect(queue.deadLettered).toBe(1);
  });

  it('brings a failed message back a visibility timeout after it was received, however long its invocation ran', async () => {
    const loop = new EventLoop(T0);
    const fn = new SimulatedFunction(loop, 'executor', 1024, 5, 120_000);
    const receivedAt: number[] = [];
    const queue = new SimulatedQueue(loop, new Random(1), settings, DEFAULT_LATENCIES.sqsRequest, fn, async (batch: Delivery[]) => {
      receivedAt.push(loop.now());
      await loop.clock.sleep(20_000);
      return { failedMessageIds: batch.map((delivery) => delivery.messageId) };
    });
    void queue.send([{ message, delaySeconds: 0 }]);
    await loop.run();
    expect(receivedAt.slice(1).map((at, i) => at - receivedAt[i]!)).toEqual([30_000, 30_000]);
  });
});

describe('simulated provisioner', () => {
  it("runs the executor as the deployed handler does: each message's receive count, and the time its invocation has left after the batch's CPU time", async () => {
    const runs: Array<{ batch: ExecutorBatchItem[]; options: ExecutorRunOptions | undefined }> = [];
    const run = Executor.prototype.run;
    const spy = vi.spyOn(Executor.prototype, 'run').mockImplementation(function (this: Executor, batch, options) {
      runs.push({ batch, options });
      return run.call(this, batch, options);
    });
    try {
      const result = await runDesign({ design: 'provisioner', workload: { name: 'burst', volumes: 2, arrival: { kind: 'burst' }, holdMs: 1000 }, seed: 1 });
      expect(result.converged).toBe(2);
    } finally {
      spy.mockRestore();
    }
    expect(runs.length).toBeGreaterThan(0);
    for (const { batch, options } of runs) {
      expect(batch.every((item) => item.receiveCount === 1)).toBe(true);
      const cpuMs = Math.ceil(lambdaCpuCost(batch.length * 5.6, EXECUTOR.memoryMiB).wallMs);
      expect(options?.remainingTimeMs).toBe(EXECUTOR.timeoutSeconds * 1000 - cpuMs);
    }
  }, 60_000);
});
