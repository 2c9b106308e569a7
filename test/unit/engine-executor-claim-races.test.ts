/**
 * A record changed between the batch's read and the executor's claim of it: removed from the
 * table, it is not written again and nothing is called in EC2; written into the table so that it
 * no longer parses, the claim is let go and nothing is called either.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { Executor } from '../../lib/engine/executor.js';
import type { RecordStore } from '../../lib/engine/ports.js';
import { executorOver, harness, newVolume, volumeKey, volumeOf } from './engine-fixtures.js';

const KEY = volumeKey('data-1');

/** An executor whose store runs `meanwhile` just before each claim, as a writer landing between the batch's read and the claim would. */
function executorWithWriteBeforeClaim(h: ReturnType<typeof harness>, meanwhile: () => Promise<void>): Executor {
  const store = new Proxy(h.store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function') return value;
      if (prop !== 'claim') return value.bind(target);
      return async (...args: Parameters<RecordStore['claim']>) => {
        await meanwhile();
        return target.claim(...args);
      };
    },
  });
  return executorOver(h, { store });
}

/** data-1 available, then set dying: its delete is next. */
async function dyingAvailableVolume(h: ReturnType<typeof harness>): Promise<VolumeRecord> {
  await h.store.create(newVolume('data-1'));
  await h.watch();
  await h.settle(10_000);
  await h.store.update<VolumeRecord>(KEY, { life: 'dying' });
  h.queue.receive(100).forEach((r) => h.queue.delete(r.receiptHandle));
  const volume = await volumeOf(h);
  expect(volume.status.state).toBe('available');
  return volume;
}

describe('executor: a record changed between the read and the claim', () => {
  it('removed from the table: no DeleteVolume, no record written again, nothing queued, the message done', async () => {
    const h = harness();
    const volume = await dyingAvailableVolume(h);
    const executor = executorWithWriteBeforeClaim(h, () => h.store.remove(KEY));
    const batch = h.batchOf(h.op('delete-volume', KEY));
    expect((await executor.run(batch)).failedMessageIds).toEqual([]);
    expect(h.ebs.calls.DeleteVolume).toBe(0);
    expect(await h.store.get(KEY)).toBeUndefined();
    expect(h.queued()).toEqual([]);
    expect(h.ebs.volume(volume.ebsVolumeId!)?.state).toBe('available');
    expect(h.metrics.operations.filter((o) => o.operation === 'delete-volume').map((o) => o.outcome)).toEqual(['skipped']);
  });

  it('written so that it no longer parses: no DeleteVolume, and the claim is let go', async () => {
    const h = harness();
    const volume = await dyingAvailableVolume(h);
    const invalid = { ...volume, status: { ...volume.status, attempts: -1 } };
    const executor = executorWithWriteBeforeClaim(h, async () => h.store.putRaw(invalid));
    const batch = h.batchOf(h.op('delete-volume', KEY));
    expect((await executor.run(batch)).failedMessageIds).toEqual([]);
    expect(h.ebs.calls.DeleteVolume).toBe(0);
    const after = await h.store.get(KEY);
    expect(after?.status.attempts).toBe(-1);
    expect(after?.claim).toBeUndefined();
  });
});
