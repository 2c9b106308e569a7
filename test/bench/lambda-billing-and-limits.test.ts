/**
 * The simulated Lambda function (`bench/sim/lambda.ts`, BENCHMARKS.md What the simulation models):
 * CPU time stretched by the share of one vCPU the memory buys, never more than one; duration
 * billed up to the function's timeout, where Lambda stops an invocation; errors counted; an
 * asynchronous event dropped only once its next retry would pass the maximum event age.
 */
import { describe, expect, it } from 'vitest';
import { EventLoop } from '../../bench/sim/event-loop.js';
import { MIB_PER_VCPU, SimulatedFunction, lambdaCpuCost } from '../../bench/sim/lambda.js';

const T0 = Date.UTC(2026, 0, 1);

describe('the simulated Lambda function', () => {
  it('gives a function one vCPU at most, however much memory it has, and bills memory in GiB', () => {
    expect(lambdaCpuCost(100, 2 * MIB_PER_VCPU)).toEqual({ vcpu: 1, wallMs: 100, gbSeconds: (0.1 * 2 * MIB_PER_VCPU) / 1024 });
    const at1024 = lambdaCpuCost(100, 1024);
    expect(at1024.wallMs).toBeCloseTo(100 / (1024 / MIB_PER_VCPU), 10);
    expect(at1024.gbSeconds).toBeCloseTo(at1024.wallMs / 1000, 10);
  });

  it('bills an invocation that outlives its timeout for the timeout and counts it; one that ends at the timeout is not over it', async () => {
    const loop = new EventLoop(T0);
    const over = new SimulatedFunction(loop, 'executor', 1024, 1, 1000);
    const exact = new SimulatedFunction(loop, 'executor', 1024, 1, 1000);
    const runs = [over.invoke(() => loop.clock.sleep(5000)), exact.invoke(() => loop.clock.sleep(1000))];
    await loop.run();
    await Promise.all(runs);
    expect([over.billedMs, over.overTimeout]).toEqual([1000, 1]);
    expect([exact.billedMs, exact.overTimeout]).toEqual([1000, 0]);
  });

  it('tells a handler the time its invocation has left, and none, not less, once the timeout has passed', async () => {
    const loop = new EventLoop(T0);
    const fn = new SimulatedFunction(loop, 'executor', 1024, 1, 1000);
    const left: number[] = [];
    const run = fn.invoke(async (context) => {
      left.push(context.remainingTimeMs());
      await loop.clock.sleep(400);
      left.push(context.remainingTimeMs());
      await loop.clock.sleep(1000);
      left.push(context.remainingTimeMs());
    });
    await loop.run();
    await run;
    expect(left).toEqual([1000, 600, 0]);
  });

  it('counts an invocation whose handler throws as an error and passes the error on', async () => {
    const loop = new EventLoop(T0);
    const fn = new SimulatedFunction(loop, 'executor', 1024, 1);
    const outcome = fn
      .invoke(async () => {
        throw new Error('boom');
      })
      .then(
        () => 'resolved',
        (error: Error) => error.message,
      );
    await loop.run();
    expect(await outcome).toBe('boom');
    expect([fn.errors, fn.invocations, fn.running]).toEqual([1, 1, 0]);
  });

  it("refuses memory below Lambda's 128 MB or a concurrency below 1, naming the field", () => {
    const loop = new EventLoop(T0);
    expect(() => new SimulatedFunction(loop, 'f', 127)).toThrow(/memoryMiB/);
    expect(() => new SimulatedFunction(loop, 'f', 128, 0)).toThrow(/maxConcurrency/);
    expect(() => new SimulatedFunction(loop, 'f', 128, 1)).not.toThrow();
  });

  it('keeps a throttled asynchronous event whose next retry falls at its maximum age, and drops it once the next would pass it', async () => {
    const loop = new EventLoop(T0);
    const fn = new SimulatedFunction(loop, 'naive', 128, 1, 900_000);
    void fn.invokeAsync(async () => loop.clock.sleep(10_000));
    void fn.invokeAsync(async () => undefined, 3_000);
    await loop.run();
    // Throttled at 0 s (next at 1 s), 1 s (next at 3 s: at the age, kept) and 3 s (next at 7 s: dropped).
    expect([fn.throttledAttempts, fn.expiredEvents, fn.invocations]).toEqual([3, 1, 1]);
  });
});
