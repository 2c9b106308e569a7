/**
 * The simulated provisioner's client side and schedule (bench/provisioner.ts, BENCHMARKS.md "The
 * client's requests" and "The reconciler"): a bulk client retries every 429 and 500 with the SDK's
 * throttling backoff until its request is taken; Lambda throttles the API function once it and the
 * watcher hold all the unreserved concurrency; the reconciler runs every interval until the run
 * is over, each pass bounded by the function's timeout, as is the one pass that prices the system
 * at rest; and a client polling its volume sees it attached, failed or gone.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { UNRESERVED_CONCURRENCY } from '../../bench/provisioner.js';
import { ApiGatewayThrottles } from '../../bench/sim/api-gateway.js';
import { Executor } from '../../lib/engine/executor.js';
import { Reconciler } from '../../lib/engine/reconciler.js';
import { Watcher } from '../../lib/engine/watcher.js';
import { RECONCILER } from '../../lib/settings.js';
import { newAttachment, newVolume } from '../unit/engine-fixtures.js';
import { simulatedProvisioner } from './simulated-provisioner.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe("the simulated provisioner's bulk client", () => {
  it('retries every 429 until taken, waiting before the n-th retry less than min(1 s × 2ⁿ⁻¹, 20 s)', async () => {
    const { loop, design, requests } = simulatedProvisioner();
    const askedAt: number[] = [];
    const refusals = 12;
    vi.spyOn(ApiGatewayThrottles.prototype, 'admit').mockImplementation((_method, nowMs) => {
      askedAt.push(nowMs);
      return askedAt.length > refusals;
    });
    let taken = false;
    void design.request(requests[0]!).then(() => (taken = true));
    await loop.run({ done: () => taken });

    expect(taken).toBe(true);
    expect(askedAt).toHaveLength(refusals + 1);
    const waits = askedAt.slice(1).map((at, i) => at - askedAt[i]!);
    waits.forEach((wait, i) => {
      expect(wait).toBeGreaterThanOrEqual(0);
      expect(wait).toBeLessThan(Math.min(1000 * 2 ** i, 20_000));
    });
    // The waits grow: the later retries wait longer than the first one can.
    expect(Math.max(...waits.slice(4))).toBeGreaterThan(1000);
    expect(design.apiThrottling()).toEqual({ apiGateway429: refusals, lambda500: 0, clientRetries: refusals });
    // API Gateway bills only what it passed on.
    expect(design.apiGatewayRequests()).toBe(1);
    expect(design.apiFunction.invocations).toBe(1);
  });

  it('is answered 500 while the API function and the watcher hold all the unreserved concurrency, billed, and retries until the API function can run', async () => {
    const { loop, design, requests } = simulatedProvisioner();
    design.watcherFunction.running = UNRESERVED_CONCURRENCY;
    let taken = false;
    void design.request(requests[0]!).then(() => (taken = true));
    await loop.run({ untilMs: loop.now() + 60_000 });

    expect(taken).toBe(false);
    const throttled = design.apiThrottling();
    expect(throttled.lambda500).toBeGreaterThan(1);
    expect(throttled.apiGateway429).toBe(0);
    expect(design.apiGatewayRequests()).toBe(throttled.lambda500);
    expect(design.apiFunction.invocations).toBe(0);

    // One unreserved slot free: the next retry runs the API function.
    design.watcherFunction.running = UNRESERVED_CONCURRENCY - 1;
    await loop.run({ done: () => taken });
    expect(taken).toBe(true);
    expect(design.apiFunction.invocations).toBe(1);
    expect(design.apiThrottling().lambda500).toBe(throttled.lambda500);
    expect(design.apiThrottling().clientRetries).toBe(throttled.lambda500);
    expect(design.apiGatewayRequests()).toBe(throttled.lambda500 + 1);
    expect(design.memoryStore.all().map((record) => record.kind).sort()).toEqual(['attachment', 'volume']);
  });
  it("asks for each lifecycle's gp3 volume of its size in its instance's AZ, attached to that instance", async () => {
    const { loop, design, requests } = simulatedProvisioner();
    const request = requests[1]!;
    let taken = false;
    void design.request(request).then(() => (taken = true));
    await loop.run({ done: () => taken });
    const volume = design.memoryStore.all().find((record) => record.kind === 'volume');
    const attachment = design.memoryStore.all().find((record) => record.kind === 'attachment');
    expect(volume).toMatchObject({ volumeId: request.id, spec: { sizeGiB: request.sizeGiB, volumeType: 'gp3', availabilityZone: request.availabilityZone } });
    expect(attachment).toMatchObject({ volumeId: request.id, instanceId: request.instanceId });
  });
});

/** The time bound each reconciler pass is given, in the order the passes start. */
function passBounds(): Array<number | undefined> {
  const run = Reconciler.prototype.run;
  const bounds: Array<number | undefined> = [];
  vi.spyOn(Reconciler.prototype, 'run').mockImplementation(function (this: Reconciler, options) {
    bounds.push(options?.remainingTimeMs);
    return run.call(this, options);
  });
  return bounds;
}

describe("the simulated provisioner's reconciler schedule", () => {
  it('runs a pass every interval from the start, and none once the run is over', async () => {
    const { loop, design } = simulatedProvisioner();
    const interval = RECONCILER.intervalMinutes * 60_000;
    const start = loop.now();
    let stopped = false;
    design.startSchedules(() => stopped);

    await loop.run({ untilMs: start + interval - 1 });
    expect(design.reconcilerFunction.invocations).toBe(0);
    await loop.run({ untilMs: start + interval + 500 });
    expect(design.reconcilerFunction.invocations).toBe(1);
    await loop.run({ untilMs: start + 2 * interval + 500 });
    expect(design.reconcilerFunction.invocations).toBe(2);
    await loop.run({ untilMs: start + 2 * interval + 60_000 });
    expect(design.reconcilerReport()).toEqual({ passes: 2, requeued: 0 });
    expect(design.reconcilerFunction.invocations).toBe(2);

    stopped = true;
    await loop.run({ untilMs: start + 6 * interval });
    expect(design.reconcilerReport().passes).toBe(2);
    expect(design.reconcilerFunction.invocations).toBe(2);
  });
  it("bounds each pass by the reconciler function's timeout, as the deployed handler does", async () => {
    const { loop, design } = simulatedProvisioner();
    const bounds = passBounds();
    let stopped = false;
    design.startSchedules(() => stopped);
    await loop.run({ untilMs: loop.now() + RECONCILER.intervalMinutes * 60_000 + 60_000 });
    stopped = true;
    expect(bounds).toEqual([RECONCILER.timeoutSeconds * 1000]);
  });

  it("prices the system at rest with one pass bounded likewise, outside the run's reconciler function", async () => {
    // bench/provisioner.ts `idleReconcilerPass`, BENCHMARKS.md "Fixed cost per month".
    const { loop, design } = simulatedProvisioner();
    const bounds = passBounds();
    let pass: Awaited<ReturnType<typeof design.idleReconcilerPass>> | undefined;
    void design.idleReconcilerPass().then((measured) => (pass = measured));
    await loop.run({ done: () => pass !== undefined });

    expect(bounds).toEqual([RECONCILER.timeoutSeconds * 1000]);
    expect(pass?.memoryMiB).toBe(RECONCILER.memoryMiB);
    expect(pass?.billedMs).toBeGreaterThan(0);
    expect(design.reconcilerFunction.invocations).toBe(0);
    expect(design.reconcilerReport()).toEqual({ passes: 0, requeued: 0 });
  });

  it('adds up the records every pass re-enqueued', async () => {
    const { loop, design } = simulatedProvisioner();
    // A volume record left creating, whose messages the executor drops: each pass looks at it again.
    vi.spyOn(Watcher.prototype, 'handle').mockResolvedValue({ failedChangeIds: [] });
    vi.spyOn(Executor.prototype, 'run').mockResolvedValue({ failedMessageIds: [] });
    await design.memoryStore.create(newVolume('vol-a', { ebsVolumeId: 'vol-0123456789abcdef0', status: { state: 'creating', attempts: 0, updatedAt: new Date(loop.now()).toISOString() } }));
    let stopped = false;
    design.startSchedules(() => stopped);
    await loop.run({ untilMs: loop.now() + 2 * RECONCILER.intervalMinutes * 60_000 + 60_000 });
    stopped = true;
    expect(design.reconcilerReport()).toEqual({ passes: 2, requeued: 2 });
  });
});

describe('what a client polling its volume sees of the simulated provisioner', () => {
  it('sees it attached once its attachment is written attached, and only then', async () => {
    const { design, seen } = simulatedProvisioner();
    const volume = newVolume('vol-a');
    const attachment = newAttachment('vol-a');
    await design.memoryStore.create(volume);
    await design.memoryStore.create(attachment);
    const key = { kind: 'attachment' as const, volumeId: 'vol-a', instanceId: attachment.instanceId };
    await design.memoryStore.update(key, { status: { ...attachment.status, state: 'attaching' } });
    expect(seen.attached).toEqual([]);
    await design.memoryStore.update(key, { status: { ...attachment.status, state: 'attached' } });
    await design.memoryStore.update(key, { status: { ...attachment.status, state: 'attached', attempts: 1 } });
    expect(seen.attached).toEqual(['vol-a']);
    expect(seen.finished).toEqual([]);
    expect(seen.failed).toEqual([]);
  });

  it('sees it gone once the volume record is removed, not when its attachment is', async () => {
    const { design, seen } = simulatedProvisioner();
    const volume = newVolume('vol-a');
    const attachment = newAttachment('vol-a');
    await design.memoryStore.create(volume);
    await design.memoryStore.create(attachment);
    await design.memoryStore.remove({ kind: 'attachment', volumeId: 'vol-a', instanceId: attachment.instanceId });
    expect(seen.finished).toEqual([]);
    await design.memoryStore.remove({ kind: 'volume', volumeId: 'vol-a' });
    expect(seen.finished).toEqual(['vol-a']);
  });

  it('sees it failed with the code and message of a record in error, and counts the failures caused by throttling', async () => {
    const { design, seen } = simulatedProvisioner();
    await design.memoryStore.create(newVolume('vol-a'));
    await design.memoryStore.create(newVolume('vol-b'));
    const failedWith = (code: string) => ({ state: 'error' as const, attempts: 3, updatedAt: new Date(0).toISOString(), code, message: `${code} happened` });
    await design.memoryStore.update({ kind: 'volume', volumeId: 'vol-a' }, { status: failedWith('RequestLimitExceeded') });
    await design.memoryStore.update({ kind: 'volume', volumeId: 'vol-b' }, { status: failedWith('VolumeLimitExceeded') });
    expect(seen.failed).toEqual([
      ['vol-a', 'volume RequestLimitExceeded: RequestLimitExceeded happened'],
      ['vol-b', 'volume VolumeLimitExceeded: VolumeLimitExceeded happened'],
    ]);
    expect(design.operationsFailedByThrottling()).toBe(1);
  });
});
