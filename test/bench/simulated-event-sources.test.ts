/**
 * The simulated provisioner's queue and stream take the settings the stack deploys (BENCHMARKS.md,
 * "SQS" and "DynamoDB Streams"): a message the executor reports failed comes back a visibility
 * timeout (`QUEUE`) after its receive (then gathered for the mapping's batching window) and goes to the dead-letter queue after `maxReceiveCount`
 * receives; a change the watcher reports failed is retried `WATCHER.retryAttempts` times, then
 * dropped.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Executor } from '../../lib/engine/executor.js';
import { Watcher } from '../../lib/engine/watcher.js';
import type { OperationMessage } from '../../lib/engine/ports.js';
import { EXECUTOR, QUEUE, WATCHER } from '../../lib/settings.js';
import { newVolume } from '../unit/engine-fixtures.js';
import { simulatedProvisioner } from './simulated-provisioner.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe("the simulated provisioner's event sources", () => {
  it('bring a message the executor failed back a visibility timeout after its receive, and dead-letter it after the last receive', async () => {
    const { loop, design } = simulatedProvisioner();
    const runAt: number[] = [];
    const receiveCounts: Array<number | undefined> = [];
    vi.spyOn(Executor.prototype, 'run').mockImplementation(async (batch) => {
      runAt.push(loop.now());
      receiveCounts.push(...batch.map((item) => item.receiveCount));
      return { failedMessageIds: batch.map((item) => item.messageId) };
    });
    const message: OperationMessage = { op: 'create-volume', key: { kind: 'volume', volumeId: 'vol-a' } };
    void design.queue.send([{ message, delaySeconds: 0 }]);
    await loop.run({ done: () => design.queue.deadLettered > 0, untilMs: loop.now() + 4 * 3600_000 });

    expect(receiveCounts).toEqual(Array.from({ length: QUEUE.maxReceiveCount }, (_, i) => i + 1));
    // Visible again a visibility timeout after its receive, then gathered for the mapping's batching window.
    const comesBackAfterMs = (QUEUE.visibilityTimeoutSeconds + EXECUTOR.maxBatchingWindowSeconds) * 1000;
    expect(runAt.slice(1).map((at, i) => at - runAt[i]!)).toEqual(Array.from({ length: QUEUE.maxReceiveCount - 1 }, () => comesBackAfterMs));
    expect(design.queue.deadLettered).toBe(1);
  });

  it("retry a change the watcher failed its stream mapping's retry attempts, then drop it", async () => {
    const { loop, design } = simulatedProvisioner();
    const handled: string[] = [];
    vi.spyOn(Watcher.prototype, 'handle').mockImplementation(async (changes) => {
      handled.push(...changes.map((change) => change.id));
      return { failedChangeIds: changes.map((change) => change.id) };
    });
    await design.memoryStore.create(newVolume('vol-a'));
    await loop.run();

    expect(handled).toHaveLength(1 + WATCHER.retryAttempts);
    expect(new Set(handled).size).toBe(1);
    expect(design.stream.dropped).toBe(1);
  });

  it('hand each concurrent invocation an executor and a watcher of its own, kept for the invocations after it as an execution environment is', async () => {
    const { loop, design, seen, requests } = simulatedProvisioner();
    const executors = new Set<Executor>();
    const watchers = new Set<Watcher>();
    const run = Executor.prototype.run;
    const handle = Watcher.prototype.handle;
    vi.spyOn(Executor.prototype, 'run').mockImplementation(function (this: Executor, batch, options) {
      executors.add(this);
      return run.call(this, batch, options);
    });
    vi.spyOn(Watcher.prototype, 'handle').mockImplementation(function (this: Watcher, changes) {
      watchers.add(this);
      return handle.call(this, changes);
    });
    for (const request of requests) void design.request(request);
    await loop.run({ done: () => seen.attached.length === requests.length, untilMs: loop.now() + 600_000 });

    expect(seen.attached).toHaveLength(requests.length);
    expect(design.executorFunction.invocations).toBeGreaterThan(design.executorFunction.peakConcurrency);
    expect(design.watcherFunction.invocations).toBeGreaterThan(design.watcherFunction.peakConcurrency);
    expect(executors.size).toBe(design.executorFunction.peakConcurrency);
    expect(watchers.size).toBe(design.watcherFunction.peakConcurrency);
  });
});
