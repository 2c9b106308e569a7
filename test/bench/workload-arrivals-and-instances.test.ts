/**
 * The benchmark's workloads as BENCHMARKS.md describes them: N lifecycles on M = max(3, ⌈N / 20⌉)
 * instances (no instance asked for more than 20 of its 27 attachment slots) in turn in three AZs,
 * volume i on instance i mod M, in its AZ; requested all at once (burst) or one per 1 / rate
 * seconds from the start (steady, the last at (N − 1) / rate); each kept attached for the hold
 * time, then released; the makespan ends when the last lifecycle ended, converged or not.
 */
import { describe, expect, it } from 'vitest';
import { EventLoop } from '../../bench/sim/event-loop.js';
import { WorkloadDriver, instancesFor, requestsFor, type DesignUnderTest, type VolumeRequest, type WorkloadSpec } from '../../bench/workload.js';

const T0 = Date.UTC(2026, 0, 1);

describe('instances and requests of a workload', () => {
  it('uses M = max(3, ⌈N / 20⌉) instances, each with 27 attachment slots', () => {
    const m = (n: number) => instancesFor(n).length;
    expect([1, 20, 60, 61, 100, 1000, 10_000].map(m)).toEqual([3, 3, 3, 4, 5, 50, 500]);
    const instances = instancesFor(1000);
    expect(new Set(instances.map((i) => i.instanceId)).size).toBe(50);
    expect(instances.every((i) => i.maxAttachments === 27)).toBe(true);
  });

  it('puts the instances in turn in us-east-1a, 1b and 1c', () => {
    expect(instancesFor(100).map((i) => i.availabilityZone)).toEqual(Array.from({ length: 5 }, (_, i) => ['us-east-1a', 'us-east-1b', 'us-east-1c'][i % 3]));
  });

  it('sends volume i to instance i mod M, in its AZ, with a device of its own there and a client id of its own', () => {
    for (const n of [60, 61, 1000, 2000]) {
      const instances = instancesFor(n);
      const requests = requestsFor(n, instances);
      expect(requests).toHaveLength(n);
      requests.forEach((request, i) => {
        const instance = instances[i % instances.length]!;
        expect(request.instanceId).toBe(instance.instanceId);
        expect(request.availabilityZone).toBe(instance.availabilityZone);
        expect(request.device).toMatch(/^\/dev\/sd[f-z]$/);
      });
      const perInstance = new Map<string, string[]>();
      for (const request of requests) perInstance.set(request.instanceId, [...(perInstance.get(request.instanceId) ?? []), request.device]);
      for (const devices of perInstance.values()) {
        expect(devices.length).toBeLessThanOrEqual(20);
        expect(new Set(devices).size).toBe(devices.length);
      }
      expect(new Set(requests.map((r) => r.id)).size).toBe(n);
    }
  });
});

/** A design that records what the driver asks of it and answers as told. */
class RecordingDesign implements DesignUnderTest {
  readonly name = 'recording';
  readonly requested: Array<{ id: string; at: number }> = [];
  readonly released: Array<{ id: string; at: number }> = [];
  constructor(
    private readonly loop: EventLoop,
    private readonly refuse: { request?: string; release?: string } = {},
  ) {}
  request(volume: VolumeRequest): Promise<void> {
    this.requested.push({ id: volume.id, at: this.loop.now() });
    return this.refuse.request === volume.id ? Promise.reject(new Error('refused')) : Promise.resolve();
  }
  release(id: string): Promise<void> {
    this.released.push({ id, at: this.loop.now() });
    return this.refuse.release === id ? Promise.reject(new Error('gone')) : Promise.resolve();
  }
}

function driverFor(spec: Partial<WorkloadSpec> & { volumes: number }, refuse?: { request?: string; release?: string }) {
  const loop = new EventLoop(T0);
  const full: WorkloadSpec = { name: 'test', arrival: { kind: 'burst' }, holdMs: 10_000, ...spec };
  const requests = requestsFor(full.volumes, instancesFor(full.volumes));
  const design = new RecordingDesign(loop, refuse);
  const driver = new WorkloadDriver(loop, full, requests, design);
  return { loop, driver, design, ids: requests.map((r) => r.id) };
}

describe('the workload driver', () => {
  it('requests a burst all at the start, and a steady workload one every 1 / rate s from the start', async () => {
    const burst = driverFor({ volumes: 3 });
    burst.loop.after(5000, () => burst.driver.start());
    await burst.loop.run();
    expect(burst.driver.startedAt).toBe(T0 + 5000);
    expect(burst.design.requested.map((r) => r.at)).toEqual([T0 + 5000, T0 + 5000, T0 + 5000]);

    const steady = driverFor({ volumes: 4, arrival: { kind: 'steady', perSecond: 2 } });
    steady.driver.start();
    await steady.loop.run();
    expect(steady.design.requested).toEqual(steady.ids.map((id, i) => ({ id, at: T0 + i * 500 })));
    expect([...steady.driver.underWay]).toEqual(steady.ids);
  });

  it('releases a volume once, the hold time after the client first sees it attached', async () => {
    const { loop, driver, design, ids } = driverFor({ volumes: 1, holdMs: 7000 });
    driver.start();
    loop.after(3000, () => driver.attached(ids[0]!));
    loop.after(4000, () => driver.attached(ids[0]!));
    await loop.run();
    expect(design.released).toEqual([{ id: ids[0], at: T0 + 10_000 }]);
    expect(driver.lifecycles.get(ids[0]!)).toMatchObject({ requestedAt: T0, attachedAt: T0 + 3000 });
  });

  it('ends a lifecycle once, finished or failed, whichever comes first, and is done when every one has ended', async () => {
    const { loop, driver, ids } = driverFor({ volumes: 3 });
    driver.start();
    loop.after(1000, () => driver.finished(ids[0]!));
    loop.after(2000, () => driver.failed(ids[1]!, 'error status'));
    loop.after(3000, () => {
      driver.failed(ids[0]!, 'late');
      driver.finished(ids[1]!);
    });
    await loop.run();
    expect([driver.finishedCount, driver.failedCount]).toEqual([1, 1]);
    expect(driver.lifecycles.get(ids[0]!)).toMatchObject({ finishedAt: T0 + 1000 });
    expect(driver.lifecycles.get(ids[0]!)!.failure).toBeUndefined();
    expect(driver.lifecycles.get(ids[1]!)).toMatchObject({ failure: 'error status' });
    expect(driver.lifecycles.get(ids[1]!)!.finishedAt).toBeUndefined();
    expect([...driver.underWay]).toEqual([ids[2]]);
    expect(driver.done()).toBe(false);
    driver.failed(ids[2]!, 'gave up');
    expect(driver.done()).toBe(true);
    expect(driver.underWay.size).toBe(0);
  });

  it('ends the makespan when the last lifecycle ended, converged or failed', async () => {
    const failedLast = driverFor({ volumes: 2 });
    failedLast.driver.start();
    failedLast.loop.after(1000, () => failedLast.driver.finished(failedLast.ids[0]!));
    failedLast.loop.after(4000, () => failedLast.driver.failed(failedLast.ids[1]!, 'error status'));
    await failedLast.loop.run();
    expect(failedLast.driver.lastFinishedAt).toBe(T0 + 4000);

    const finishedLast = driverFor({ volumes: 2 });
    finishedLast.driver.start();
    finishedLast.loop.after(1000, () => finishedLast.driver.failed(finishedLast.ids[0]!, 'error status'));
    finishedLast.loop.after(4000, () => finishedLast.driver.finished(finishedLast.ids[1]!));
    await finishedLast.loop.run();
    expect(finishedLast.driver.lastFinishedAt).toBe(T0 + 4000);
  });

  it('fails a lifecycle whose request or release the design refuses, naming which', async () => {
    const { loop, driver, ids } = driverFor({ volumes: 2, holdMs: 1000 }, { request: 'vol-req-000000', release: 'vol-req-000001' });
    driver.start();
    loop.after(100, () => driver.attached(ids[1]!));
    await loop.run();
    expect(driver.lifecycles.get(ids[0]!)!.failure).toBe('request: Error: refused');
    expect(driver.lifecycles.get(ids[1]!)!.failure).toBe('release: Error: gone');
    expect(driver.failedCount).toBe(2);
    expect(driver.done()).toBe(true);
  });

  it('refuses to start without a design', () => {
    const loop = new EventLoop(T0);
    const driver = new WorkloadDriver(loop, { name: 'test', volumes: 1, arrival: { kind: 'burst' }, holdMs: 0 }, requestsFor(1, instancesFor(1)));
    expect(() => driver.start()).toThrow('design: not attached');
  });
});
