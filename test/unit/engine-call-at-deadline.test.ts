/**
 * No EC2 call starts once the invocation's reserve for writes and follow-ups is reached, also when
 * it is reached after the batch's describes, while the status write before the call is made (the
 * table slow to answer): the call is deferred, unsent, and its message brings it back.
 */
import { describe, expect, it } from 'vitest';
import { Executor } from '../../lib/engine/executor.js';
import type { RecordStore } from '../../lib/engine/ports.js';
import { silentLog } from '../../lib/memory/index.js';
import { INSTANCE, harness, newVolume, providerOver, volumeKey, volumeOf } from './engine-fixtures.js';

const REMAINING_MS = 120_000;
const RESERVE_MS = 10_000;
const DESCRIBE_MS = 100_000;

/** data-1 placed by its instance (described in 100 s), its pre-call write taking `writeMs`, run with 120 s left. */
async function createWithSlowWrite(writeMs: number) {
  const h = harness();
  let slowWrites = 0;
  const provider = providerOver(h.ebs, {
    describeInstances: async (ids) => {
      await h.clock.sleep(DESCRIBE_MS);
      slowWrites = 1;
      return h.ebs.describeInstances(ids);
    },
  });
  const store = new Proxy(h.store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function') return value;
      if (prop !== 'update') return value.bind(target);
      return async (...args: Parameters<RecordStore['update']>) => {
        if (slowWrites > 0) {
          slowWrites--;
          await h.clock.sleep(writeMs);
        }
        return target.update(...args);
      };
    },
  });
  const executor = new Executor({ store, queue: h.queue, provider, clock: h.clock, metrics: h.metrics, log: silentLog, config: { rateWaitMaxMs: 0 } });
  await h.store.create(newVolume('data-1', {}, { availabilityZone: undefined, placementInstanceId: INSTANCE }));
  const run = executor.run(h.batchOf(h.op('create-volume', volumeKey('data-1'))), { remainingTimeMs: REMAINING_MS });
  await h.clock.advance(REMAINING_MS);
  expect((await run).failedMessageIds).toEqual([]);
  return h;
}

describe('executor: the reserve reached during the write before the call', () => {
  it('reached exactly as the write ends: no CreateVolume, its message back', async () => {
    const h = await createWithSlowWrite(REMAINING_MS - RESERVE_MS - DESCRIBE_MS);
    expect(h.ebs.calls.CreateVolume).toBe(0);
    expect(h.queued().filter((q) => q.op === 'create-volume' && q.key === 'data-1')).toHaveLength(1);
    await h.settle(60_000);
    expect(h.ebs.calls.CreateVolume).toBe(1);
    expect((await volumeOf(h)).status.state).toBe('available');
  });

  it('a millisecond before it: the CreateVolume is made', async () => {
    const h = await createWithSlowWrite(REMAINING_MS - RESERVE_MS - DESCRIBE_MS - 1);
    expect(h.ebs.calls.CreateVolume).toBe(1);
  });
});
