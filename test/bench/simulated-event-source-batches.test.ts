/**
 * The simulated provisioner's event source mappings take their batches, shards and duplicates
 * as BENCHMARKS.md states ("SQS", "DynamoDB Streams"): the queue's mapping gathers up to
 * `EXECUTOR.batchSize` messages for at most its batching window; the stream's mapping hands the
 * watcher up to `WATCHER.batchSize` records of a shard, one invocation per shard at a time, on
 * the run's number of shards; the run's duplicate rate is the share of deliveries made twice.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Executor } from '../../lib/engine/executor.js';
import type { QueuedOperation } from '../../lib/engine/ports.js';
import { Watcher } from '../../lib/engine/watcher.js';
import { EXECUTOR, WATCHER } from '../../lib/settings.js';
import { newVolume } from '../unit/engine-fixtures.js';
import { simulatedProvisioner } from './simulated-provisioner.js';

afterEach(() => {
  vi.restoreAllMocks();
});

const operations = (count: number): QueuedOperation[] =>
  Array.from({ length: count }, (_, i) => ({ message: { op: 'create-volume', key: { kind: 'volume', volumeId: `vol-${i}` } }, delaySeconds: 0 }));

describe("the simulated provisioner's queue mapping", () => {
  it('hands the executor a full batch of 100 messages at once, and the other 50 in a batch of their own', async () => {
    expect([EXECUTOR.batchSize, EXECUTOR.maxBatchingWindowSeconds]).toEqual([100, 1]);
    const { loop, design } = simulatedProvisioner();
    const batches: Array<{ size: number }> = [];
    vi.spyOn(Executor.prototype, 'run').mockImplementation(async (batch) => {
      batches.push({ size: batch.length });
      return { failedMessageIds: [] };
    });
    void design.queue.send(operations(150));
    await loop.run();
    expect(batches.map((batch) => batch.size)).toEqual([100, 50]);
  });

  it("delivers about the run's duplicate rate of the deliveries once more", async () => {
    // A copy is a delivery too, and may be delivered again: 200 × (0.2 + 0.2² + …) = 50 copies expected.
    const { loop, design } = simulatedProvisioner(1, true, { duplicateRate: 0.2 });
    vi.spyOn(Executor.prototype, 'run').mockResolvedValue({ failedMessageIds: [] });
    void design.queue.send(operations(200));
    await loop.run();
    expect(design.queue.duplicatesDelivered).toBeGreaterThan(25);
    expect(design.queue.duplicatesDelivered).toBeLessThan(85);
    expect(design.queue.deliveries).toBe(200 + design.queue.duplicatesDelivered);
  });

  it('delivers none twice at a duplicate rate of 0', async () => {
    const { loop, design } = simulatedProvisioner(1, true, { duplicateRate: 0 });
    vi.spyOn(Executor.prototype, 'run').mockResolvedValue({ failedMessageIds: [] });
    void design.queue.send(operations(200));
    await loop.run();
    expect(design.queue.duplicatesDelivered).toBe(0);
    expect(design.queue.deliveries).toBe(200);
  });
});

describe("the simulated provisioner's stream mapping", () => {
  it("hands the watcher at most 100 of a shard's records at once, those visible when it polls", async () => {
    expect(WATCHER.batchSize).toBe(100);
    const { loop, design } = simulatedProvisioner(1, true, { shards: 1 });
    const sizes: number[] = [];
    vi.spyOn(Watcher.prototype, 'handle').mockImplementation(async (changes) => {
      sizes.push(changes.length);
      // The first invocation runs long enough for every later change to become visible.
      if (sizes.length === 1) await loop.clock.sleep(60_000);
      return { failedChangeIds: [] };
    });
    for (let i = 0; i < 150; i++) await design.memoryStore.create(newVolume(`vol-${i}`));
    await loop.run();
    expect(sizes).toEqual([1, 100, 49]);
  });

  it("runs one watcher invocation per shard at a time, on the run's number of shards", async () => {
    for (const shards of [1, 2, 4]) {
      const { loop, design } = simulatedProvisioner(1, true, { shards });
      vi.spyOn(Watcher.prototype, 'handle').mockImplementation(async () => {
        await loop.clock.sleep(10_000);
        return { failedChangeIds: [] };
      });
      for (let i = 0; i < 40; i++) await design.memoryStore.create(newVolume(`vol-${i}`));
      await loop.run();
      expect(design.watcherFunction.peakConcurrency).toBe(shards);
      vi.restoreAllMocks();
    }
  });
});
