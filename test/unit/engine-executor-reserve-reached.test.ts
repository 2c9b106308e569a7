/**
 * The invocation's time bound at its edge: an executor invocation keeps 10 s of the time Lambda
 * gives it for the writes and follow-ups after its last EC2 call. A call not started by the time
 * that reserve is reached is deferred, unsent; one that still has a moment before it goes.
 */
import { describe, expect, it } from 'vitest';
import { executorOver, harness, INSTANCE, newVolume, providerOver, volumeKey, volumeOf } from './engine-fixtures.js';

const REMAINING_MS = 120_000;
const RESERVE_MS = 10_000;

/** data-1 placed by its instance, whose description takes `describeMs`, run with 120 s left. */
async function createAfterSlowDescribe(describeMs: number) {
  const h = harness();
  const provider = providerOver(h.ebs, {
    describeInstances: async (ids) => {
      await h.clock.sleep(describeMs);
      return h.ebs.describeInstances(ids);
    },
  });
  const executor = executorOver(h, { provider });
  await h.store.create(newVolume('data-1', {}, { availabilityZone: undefined, placementInstanceId: INSTANCE }));
  const run = executor.run(h.batchOf(h.op('create-volume', volumeKey('data-1'))), { remainingTimeMs: REMAINING_MS });
  await h.clock.advance(REMAINING_MS);
  const { failedMessageIds } = await run;
  expect(failedMessageIds).toEqual([]);
  return h;
}

describe('executor: the time kept for writes and follow-ups, at its edge', () => {
  it('reached exactly when the describes end: no CreateVolume, the record as it was, its message back', async () => {
    const h = await createAfterSlowDescribe(REMAINING_MS - RESERVE_MS);
    expect(h.ebs.calls.CreateVolume).toBe(0);
    const volume = await volumeOf(h);
    expect(volume.status).toMatchObject({ state: 'pending', attempts: 0 });
    expect(volume.claim).toBeUndefined();
    expect(h.queued().filter((q) => q.op === 'create-volume' && q.key === 'data-1')).toHaveLength(1);
  });

  it('a millisecond before it: the CreateVolume is made', async () => {
    const h = await createAfterSlowDescribe(REMAINING_MS - RESERVE_MS - 1);
    expect(h.ebs.calls.CreateVolume).toBe(1);
    expect((await volumeOf(h)).status.state).toBe('creating');
  });
});
