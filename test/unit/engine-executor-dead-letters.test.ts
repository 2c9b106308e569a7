/**
 * A message whose record the executor fails on every time (a step that throws: an answer of an
 * unexpected shape, a bug) is delivered again until SQS moves it to the dead-letter queue. The
 * record's status must then say so, for the client reading it: not go on saying the operation is
 * under way as if nothing were wrong.
 */
import { describe, expect, it } from 'vitest';
import { Executor } from '../../lib/engine/executor.js';
import { createExecutorHandler } from '../../lib/functions/handlers.js';
import { ProviderError, type ProviderVolume } from '../../lib/engine/ports.js';
import { silentLog } from '../../lib/memory/index.js';
import { OWNERSHIP_TAGS, QUEUE } from '../../lib/settings.js';
import { answerOfNoShape, executorOver, harness, newVolume, providerOver, sqsRecord, volumeKey, volumeOf } from './engine-fixtures.js';

/**
 * The event source mapping, `deliveries` times: what is received runs, what did not fail is deleted,
 * and failed messages come back after the visibility timeout, until SQS dead-letters them.
 */
async function deliverAsTheEventSourceDoes(h: ReturnType<typeof harness>, executor: Executor, deliveries: number): Promise<void> {
  for (let delivery = 0; delivery < deliveries; delivery++) {
    const received = h.queue.receive(10);
    if (received.length > 0) {
      const { failedMessageIds } = await executor.run(received.map((r) => ({ messageId: r.messageId, message: r.message, receiveCount: r.receiveCount })));
      for (const r of received) if (!failedMessageIds.includes(r.messageId)) h.queue.delete(r.receiptHandle);
    }
    await h.clock.advance(QUEUE.visibilityTimeoutSeconds * 1000 + 1000);
  }
}

describe('executor: a message that keeps failing', () => {
  it('is dead-lettered with the record\'s status saying the executor keeps failing on it', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    const provider = answerOfNoShape(h);
    const executor = executorOver(h, { provider });
    await h.queue.send([{ message: h.op('create-volume', volumeKey('data-1')), delaySeconds: 0 }]);

    await deliverAsTheEventSourceDoes(h, executor, QUEUE.maxReceiveCount + 1);
    h.queue.receive(10);
    expect(h.queue.deadLetters().map((m) => m.message.key)).toEqual([volumeKey('data-1')]);
    expect(h.ebs.volumes().filter((v) => v.tags[OWNERSHIP_TAGS.record] === 'data-1')).toHaveLength(1);

    const volume = await volumeOf(h);
    // Not a plain "creating" with no word of what is wrong.
    expect(volume.status.code).toBe('ExecutorFailed');
    expect(volume.status.message).toMatch(/failed .*5 times/);
    expect(volume.claim).toBeUndefined();
  });

  it('a retry whose message was dead-lettered shows no next attempt: none is queued any more', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    // The first CreateVolume fails as EC2 may: a retry with backoff, its time in nextAttemptAt. Each retry then throws.
    h.ebs.failNext('CreateVolume', new ProviderError('transient', 'InternalError', 'boom'));
    const executor = executorOver(h, { provider: answerOfNoShape(h) });
    await h.queue.send([{ message: h.op('create-volume', volumeKey('data-1')), delaySeconds: 0 }]);
    await deliverAsTheEventSourceDoes(h, executor, QUEUE.maxReceiveCount + 2);
    h.queue.receive(10);
    expect(h.queue.deadLetters()).toHaveLength(1);
    expect(h.queue.pending()).toEqual([]);

    const volume = await volumeOf(h);
    expect(volume.status).toMatchObject({ code: 'ExecutorFailed', attempts: 1 });
    // Not a time long past at which an attempt was said to come.
    expect(volume.status.nextAttemptAt).toBeUndefined();
  });

  it('a dead-lettered message of a record whose next attempt is still ahead says that attempt is still queued', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    // The step runs past its lease: another invocation's attempt fails meanwhile and queues its next one 10 minutes ahead; this one then meets an answer of no shape.
    const nextAttemptAt = new Date(h.clock.now() + 10 * 60_000).toISOString();
    const provider = providerOver(h.ebs, {
      createVolume: async () => {
        await h.store.update(volumeKey('data-1'), { status: { state: 'pending', code: 'InternalError', attempts: 1, nextAttemptAt, updatedAt: new Date(h.clock.now()).toISOString() } });
        return undefined as unknown as ProviderVolume;
      },
    });
    const executor = executorOver(h, { provider });
    const last = { messageId: 'last', message: h.op('create-volume', volumeKey('data-1')), receiveCount: QUEUE.maxReceiveCount };
    expect((await executor.run([last])).failedMessageIds).toEqual(['last']);

    const { status } = await volumeOf(h);
    expect(status).toMatchObject({ code: 'ExecutorFailed', nextAttemptAt });
    expect(status.message).toMatch(new RegExp(`Its next attempt is still queued, at ${nextAttemptAt}$`));
  });

  it('notes the last delivery of any copy of the message in the batch, and leaves alone a record another invocation has claimed meanwhile', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    const executor = executorOver(h, { provider: answerOfNoShape(h) });
    // Two copies of the message: its last delivery first, a later copy delivered once.
    const copies = [
      { messageId: 'last', message: h.op('create-volume', volumeKey('data-1')), receiveCount: QUEUE.maxReceiveCount },
      { messageId: 'copy', message: h.op('create-volume', volumeKey('data-1')), receiveCount: 1 },
    ];
    expect((await executor.run(copies)).failedMessageIds.sort()).toEqual(['copy', 'last']);
    expect((await volumeOf(h)).status.code).toBe('ExecutorFailed');

    // The step runs past its lease and another invocation claims the record before the note would be written.
    await h.store.create(newVolume('data-2'));
    const other = { owner: 'another-invocation', expiresAt: h.clock.now() + 60_000 };
    const taken = providerOver(h.ebs, {
      createVolume: async (request) => {
        await h.store.update(volumeKey('data-2'), { claim: other });
        await h.ebs.createVolume(request);
        return undefined as unknown as ProviderVolume;
      },
    });
    const late = executorOver(h, { provider: taken });
    const last = { messageId: 'last-2', message: h.op('create-volume', volumeKey('data-2')), receiveCount: QUEUE.maxReceiveCount };
    expect((await late.run([last])).failedMessageIds).toEqual(['last-2']);
    const held = await volumeOf(h, 'data-2');
    expect(held.claim).toEqual(other);
    expect(held.status.code).toBeUndefined();
  });

  it('the executor function passes on how often SQS delivered each message', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    const provider = answerOfNoShape(h);
    const handler = createExecutorHandler({ store: h.store, queue: h.queue, provider, clock: h.clock, metrics: h.metrics, log: silentLog, config: { rateWaitMaxMs: 0 } });
    const record = (receives: number) => sqsRecord(`m-${receives}`, JSON.stringify(h.op('create-volume', volumeKey('data-1'))), receives);
    expect(await handler({ Records: [record(1)] })).toEqual({ batchItemFailures: [{ itemIdentifier: 'm-1' }] });
    expect((await volumeOf(h)).status.code).toBeUndefined();
    await h.clock.advance(QUEUE.visibilityTimeoutSeconds * 1000);
    expect(await handler({ Records: [record(QUEUE.maxReceiveCount)] })).toEqual({ batchItemFailures: [{ itemIdentifier: `m-${QUEUE.maxReceiveCount}` }] });
    expect((await volumeOf(h)).status).toMatchObject({ state: 'creating', code: 'ExecutorFailed' });
  });
});
