/**
 * The simulated Lambda function (`bench/sim/lambda.ts`) runs at most `maxConcurrency` invocations
 * at once: an event source that invokes it with every slot taken is refused with the function's
 * name and limit, and nothing is counted or billed for it; the peak of invocations running at
 * once is kept.
 */
import { describe, expect, it } from 'vitest';
import { EventLoop } from '../../bench/sim/event-loop.js';
import { SimulatedFunction } from '../../bench/sim/lambda.js';

const T0 = Date.UTC(2026, 0, 1);

describe('the simulated function at its concurrency limit', () => {
  it('refuses an invocation with every slot taken, counting and billing nothing for it, and keeps the peak it reached', async () => {
    const loop = new EventLoop(T0);
    const fn = new SimulatedFunction(loop, 'executor', 1024, 2);
    const hold = () => fn.invoke(() => loop.clock.sleep(1_000));
    const running = [hold(), hold()];
    expect(fn.hasCapacity()).toBe(false);
    let called = false;
    await expect(
      fn.invoke(async () => {
        called = true;
      }),
    ).rejects.toThrow('executor: invoked above its concurrency limit 2');
    expect(called).toBe(false);
    expect([fn.invocations, fn.running, fn.peakConcurrency]).toEqual([2, 2, 2]);
    await Promise.all([loop.run(), ...running]);
    expect([fn.invocations, fn.running, fn.peakConcurrency, fn.billedMs, fn.errors]).toEqual([2, 0, 2, 2_000, 0]);
  });
});
