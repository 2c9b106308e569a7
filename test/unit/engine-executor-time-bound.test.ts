/**
 * The invocation's time bound: an executor invocation keeps INVOCATION_RESERVE_MS (10 s) of Lambda's
 * time for the status writes and follow-ups after its last EC2 call. Time spent before the calls
 * (slow describes or table reads, the SDK's retries) must not push a call into that reserve: once
 * the reserve is reached, calls not yet made are deferred, unsent, like calls without a rate token.
 */
import { describe, expect, it } from 'vitest';
import { createExecutorHandler } from '../../lib/functions/handlers.js';
import { silentLog } from '../../lib/memory/index.js';
import { AZ, executorOver, harness, INSTANCE, newVolume, providerOver, sqsRecord, volumeKey, volumeOf } from './engine-fixtures.js';

const LAMBDA_TIMEOUT_MS = 120_000;

describe('executor: the invocation time bound', () => {
  it('makes no EC2 call once the time kept for writes and follow-ups is reached; the call is deferred, not lost', async () => {
    const h = harness();
    // The placement instance's description takes 115 s (EC2 slow, the SDK retrying): 5 s of the invocation are left.
    const provider = providerOver(h.ebs, {
      describeInstances: async (ids) => {
        await h.clock.sleep(115_000);
        return h.ebs.describeInstances(ids);
      },
    });
    const executor = executorOver(h, { provider });
    await h.store.create(newVolume('data-1', {}, { availabilityZone: undefined, placementInstanceId: INSTANCE }));
    const started = h.clock.now();
    const run = executor.run(h.batchOf(h.op('create-volume', volumeKey('data-1'))), { remainingTimeMs: LAMBDA_TIMEOUT_MS });
    await h.clock.advance(LAMBDA_TIMEOUT_MS);
    const { failedMessageIds } = await run;

    // Lambda would stop the invocation 5 s later: no CreateVolume is started now.
    expect(h.ebs.calls.CreateVolume).toBe(0);
    expect(failedMessageIds).toEqual([]);
    const volume = await volumeOf(h);
    expect(volume.status.state).toBe('pending');
    expect(volume.status.attempts).toBe(0);
    expect(volume.claim).toBeUndefined();
    expect(h.queued().filter((q) => q.op === 'create-volume' && q.key === 'data-1')).toHaveLength(1);
    expect(h.clock.now() - started).toBeLessThanOrEqual(LAMBDA_TIMEOUT_MS);

    // Its message brings it back; the next invocation creates it.
    await h.settle(60_000);
    expect(h.ebs.calls.CreateVolume).toBe(1);
    expect((await volumeOf(h)).status.state).toBe('available');
    expect((await volumeOf(h)).availabilityZone).toBe(AZ);
  });

  it('through the executor function, the bound is the time Lambda says the invocation has left', async () => {
    const h = harness();
    const provider = providerOver(h.ebs, {
      describeInstances: async (ids) => {
        await h.clock.sleep(115_000);
        return h.ebs.describeInstances(ids);
      },
    });
    const handler = createExecutorHandler({ store: h.store, queue: h.queue, provider, clock: h.clock, metrics: h.metrics, log: silentLog, config: { rateWaitMaxMs: 0 } });
    await h.store.create(newVolume('data-1', {}, { availabilityZone: undefined, placementInstanceId: INSTANCE }));
    const record = sqsRecord('m-1', JSON.stringify(h.op('create-volume', volumeKey('data-1'))));
    const run = handler({ Records: [record] }, { getRemainingTimeInMillis: () => LAMBDA_TIMEOUT_MS });
    await h.clock.advance(LAMBDA_TIMEOUT_MS);
    expect(await run).toEqual({ batchItemFailures: [] });
    expect(h.ebs.calls.CreateVolume ?? 0).toBe(0);
    expect(h.queued().filter((q) => q.op === 'create-volume' && q.key === 'data-1')).toHaveLength(1);
  });

  it('a call whose turn comes after that point (a slow status write before it) is deferred unsent; the volume is still created once', async () => {
    const h = harness();
    const executor = executorOver(h);
    await h.store.create(newVolume('data-1'));
    // The write recording the request before the call takes 115 s (DynamoDB throttling, the SDK retrying).
    const update = h.store.update.bind(h.store);
    let slow = true;
    h.store.update = (async (...args: Parameters<typeof update>) => {
      if (slow) {
        slow = false;
        await h.clock.sleep(115_000);
      }
      return update(...args);
    }) as typeof update;
    const run = executor.run(h.batchOf(h.op('create-volume', volumeKey('data-1'))), { remainingTimeMs: LAMBDA_TIMEOUT_MS });
    await h.clock.advance(LAMBDA_TIMEOUT_MS);
    expect((await run).failedMessageIds).toEqual([]);
    expect(h.ebs.calls.CreateVolume).toBe(0);
    const volume = await volumeOf(h);
    expect(volume.status.attempts).toBe(0);
    expect(volume.claim).toBeUndefined();

    await h.settle(60_000);
    expect(h.ebs.calls.CreateVolume).toBe(1);
    expect((await volumeOf(h)).status.state).toBe('available');
  });
});
