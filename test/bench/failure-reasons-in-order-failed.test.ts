/**
 * A run reports the first five distinct reasons its lifecycles failed for, in the order they failed
 * (`DesignResult.failureReasons`), not in the order they were requested.
 */
import { describe, expect, it } from 'vitest';
import { firstFailureReasons } from '../../bench/run.js';
import { EventLoop } from '../../bench/sim/event-loop.js';
import { WorkloadDriver, instancesFor, requestsFor, type DesignUnderTest, type LifecycleTimes } from '../../bench/workload.js';

describe('failure reasons', () => {
  it('lists the reasons in the order the lifecycles failed: a later request failing first comes first', async () => {
    const loop = new EventLoop();
    const requests = requestsFor(3, instancesFor(3));
    // The first request fails after 30 s, the second after 20 s, the third after 10 s.
    const failAfterMs = new Map(requests.map((request, i) => [request.id, 30_000 - i * 10_000]));
    const design: DesignUnderTest = {
      name: 'failing',
      request: (request) => new Promise((_, reject) => loop.after(failAfterMs.get(request.id)!, () => reject(new Error(`gave up on ${request.id}`)))),
      release: () => Promise.resolve(),
    };
    const driver = new WorkloadDriver(loop, { name: 'burst', volumes: 3, arrival: { kind: 'burst' }, holdMs: 1000 }, requests, design);
    driver.start();
    await loop.run({ done: () => driver.done() });
    expect(driver.failedCount).toBe(3);
    expect(firstFailureReasons(driver.lifecycles.values())).toEqual([...requests].reverse().map((request) => `request: Error: gave up on ${request.id}`));
  });

  it('gives each reason once, and the first five only', () => {
    const failed = (failedAt: number, failure: string): LifecycleTimes => ({ requestedAt: 0, failedAt, failure });
    const lifecycles: LifecycleTimes[] = [
      failed(70, 'g'),
      failed(10, 'a'),
      { requestedAt: 0, attachedAt: 5, finishedAt: 15 },
      failed(20, 'b'),
      failed(25, 'a'),
      failed(60, 'f'),
      failed(30, 'c'),
      failed(50, 'e'),
      failed(40, 'd'),
    ];
    expect(firstFailureReasons(lifecycles)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(firstFailureReasons([])).toEqual([]);
  });
});
