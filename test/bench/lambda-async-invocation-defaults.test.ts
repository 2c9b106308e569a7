/**
 * Asynchronous invocations of the simulated function (`bench/sim/lambda.ts`): by default a
 * throttled event is kept for Lambda's default maximum event age of 6 hours, retried at intervals
 * doubling from 1 s to at most 5 minutes, and dropped once its next retry would pass that age;
 * an invocation whose handler throws is counted as an error, not thrown to the caller.
 */
import { describe, expect, it } from 'vitest';
import { EventLoop } from '../../bench/sim/event-loop.js';
import { ASYNC_MAX_EVENT_AGE_MS, SimulatedFunction } from '../../bench/sim/lambda.js';

const T0 = Date.UTC(2026, 0, 1);
const HOUR = 3_600_000;

describe('asynchronous invocations of the simulated function', () => {
  it('keep a throttled event for 6 hours by default, dropping it at its last retry before that age', async () => {
    expect(ASYNC_MAX_EVENT_AGE_MS).toBe(6 * HOUR);
    const loop = new EventLoop(T0);
    const fn = new SimulatedFunction(loop, 'naive', 128, 1);
    // The only slot is held for a day.
    void fn.invokeAsync(() => loop.clock.sleep(24 * HOUR));
    let droppedAt: number | undefined;
    void fn.invokeAsync(async () => undefined).then(() => (droppedAt = loop.now() - T0));
    await loop.run();
    expect(fn.expiredEvents).toBe(1);
    // Retries 1 s, 2 s, … 256 s apart (511 s in all), then every 300 s: the last one kept is at 21 511 s.
    expect(droppedAt).toBe(21_511_000);
    expect(droppedAt! + 300_000).toBeGreaterThan(6 * HOUR);
  });

  it('count an invocation whose handler throws as an error and resolve, telling no caller', async () => {
    const loop = new EventLoop(T0);
    const fn = new SimulatedFunction(loop, 'naive', 128, 1);
    const done = fn.invokeAsync(async () => {
      await loop.clock.sleep(100);
      throw new Error('worker failed');
    });
    await loop.run();
    await expect(done).resolves.toBeUndefined();
    expect([fn.invocations, fn.errors]).toEqual([1, 1]);
  });
});
