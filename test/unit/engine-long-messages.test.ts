/**
 * A status quotes text from EC2 or from an error, which can be of any length, and then says what
 * happens next (a dying record's next attempt, why a step was given up, what a dead-lettered
 * message leaves queued, what a retry does). Shortened to the status message bound, the quoted
 * text gives way: the words after it are kept whole, and no character is cut in two.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord, VolumeRecord } from '../../lib/domain/records.js';
import { MAX_STATUS_MESSAGE_CHARS } from '../../lib/domain/status-message.js';
import { Executor } from '../../lib/engine/executor.js';
import { ProviderError, type ProviderVolume } from '../../lib/engine/ports.js';
import { dyingGiveUpMessage, failureStatus, settledStatus } from '../../lib/engine/status.js';
import { silentLog } from '../../lib/memory/index.js';
import { OWNERSHIP_TAGS, QUEUE } from '../../lib/settings.js';
import { AZ, START, attachmentKey, harness, newAttachment, newVolume, providerOver, volumeKey, volumeOf } from './engine-fixtures.js';

/**
 * EC2 texts of 3 000 characters and more, of characters of two UTF-16 units after one of one
 * (and without it), so that one or the other puts a cut between the two units of a character.
 */
const LONG_TEXTS = ['é' + '😀'.repeat(1500), '😀'.repeat(1500), `Ünterbrochen ${'ß😀'.repeat(1200)}`];

/** Whether `text` holds half of a character (a UTF-16 surrogate on its own). */
function holdsHalfACharacter(text: string): boolean {
  return /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);
}

function expectShortenedBefore(message: string | undefined, ending: RegExp): void {
  expect(message).toBeDefined();
  expect(message!.length).toBeLessThanOrEqual(MAX_STATUS_MESSAGE_CHARS);
  expect(message).toMatch(ending);
  expect(message).toContain('…');
  expect(holdsHalfACharacter(message!)).toBe(false);
}

describe('a dying record\'s give-up', () => {
  it.each(LONG_TEXTS)('keeps saying when it is tried again after a long EC2 message (%#)', (text) => {
    const atMs = START + 15 * 60_000;
    const message = dyingGiveUpMessage(text, atMs);
    expectShortenedBefore(message, /…; being deleted: trying again at 2026-01-01T00:15:00\.000Z$/);
    const status = failureStatus({ state: 'deleting', attempts: 0, updatedAt: new Date(START).toISOString() }, 'error', START, {
      code: 'InvalidParameterValue',
      message,
      attempts: 1,
      nextAttemptAtMs: atMs,
    });
    expect(status.message).toBe(message);
    // Set back to alive, the clause can be taken off again.
    expect(settledStatus(status, START).message).toBe(message.slice(0, message.lastIndexOf('; being deleted')));
  });

  it.each(LONG_TEXTS)('of a volume whose delete EC2 refuses with a long message says when it is tried again (%#)', async (text) => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await h.executor.run(h.batchOf(h.op('create-volume', volumeKey('data-1'))));
    await h.settle(30_000);
    h.ebs.failNext('DeleteVolume', new ProviderError('invalid-request', 'InvalidParameterValue', text));
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'dying' });
    await h.executor.run(h.batchOf(h.op('delete-volume', volumeKey('data-1'))));
    const { status } = await volumeOf(h, 'data-1');
    expect(status).toMatchObject({ state: 'error', code: 'InvalidParameterValue', nextAttemptAt: expect.any(String) });
    expectShortenedBefore(status.message, new RegExp(`…; being deleted: trying again at ${status.nextAttemptAt!.replace(/\./g, '\\.')}$`));
  });

  it.each(LONG_TEXTS)('of a volume whose delete fails until its attempts are spent says why it gave up and when it is tried again (%#)', async (text) => {
    const h = harness({ config: { maxAttempts: 2 } });
    await h.store.create(newVolume('data-1'));
    await h.executor.run(h.batchOf(h.op('create-volume', volumeKey('data-1'))));
    await h.settle(30_000);
    h.ebs.failNext('DeleteVolume', new ProviderError('transient', 'InternalError', text), 2);
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'dying' });
    await h.executor.run(h.batchOf(h.op('delete-volume', volumeKey('data-1'))));
    await h.settle(5 * 60_000, 1_000);
    const { status } = await volumeOf(h, 'data-1');
    expect(status).toMatchObject({ state: 'error', code: 'InternalError', nextAttemptAt: expect.any(String) });
    expectShortenedBefore(status.message, /… \(failed 2 times so far\); being deleted: trying again at \S+$/);
  });

  it.each(LONG_TEXTS)('of an attachment whose detach EC2 refuses with a long message says when it is tried again (%#)', async (text) => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await h.executor.run(h.batchOf(h.op('create-volume', volumeKey('data-1'))));
    await h.settle(30_000);
    await h.store.create(newAttachment('data-1'));
    await h.executor.run(h.batchOf(h.op('attach', attachmentKey('data-1'))));
    await h.settle(20_000);
    h.ebs.failNext('DetachVolume', new ProviderError('invalid-request', 'InvalidParameterValue', text));
    await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { life: 'dying' });
    await h.executor.run(h.batchOf(h.op('detach', attachmentKey('data-1'))));
    const attachment = (await h.store.get(attachmentKey('data-1'))) as AttachmentRecord;
    expect(attachment.status).toMatchObject({ state: 'error', code: 'InvalidParameterValue', nextAttemptAt: expect.any(String) });
    expectShortenedBefore(attachment.status.message, /…; being deleted: trying again at \S+$/);
  });
});

describe('a dead-lettered message of a long failure', () => {
  it.each(LONG_TEXTS)('still says what comes next (%#)', async (text) => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    // CreateVolume, made, answers with something whose every field throws `text`: each attempt's step throws it.
    const provider = providerOver(h.ebs, {
      createVolume: async (request) => {
        await h.ebs.createVolume(request);
        // Not a promise's `then`: awaiting it is no read of its fields.
        return new Proxy({}, { get: (_target, field) => { if (field === 'then') return undefined; throw new Error(text); } }) as ProviderVolume;
      },
    });
    const executor = new Executor({ store: h.store, queue: h.queue, provider, clock: h.clock, metrics: h.metrics, log: silentLog, config: { rateWaitMaxMs: 0 } });
    await h.queue.send([{ message: h.op('create-volume', volumeKey('data-1')), delaySeconds: 0 }]);
    for (let delivery = 0; delivery <= QUEUE.maxReceiveCount; delivery++) {
      const received = h.queue.receive(10);
      if (received.length > 0) {
        const { failedMessageIds } = await executor.run(received.map((r) => ({ messageId: r.messageId, message: r.message, receiveCount: r.receiveCount })));
        for (const r of received) if (!failedMessageIds.includes(r.messageId)) h.queue.delete(r.receiptHandle);
      }
      await h.clock.advance(QUEUE.visibilityTimeoutSeconds * 1000 + 1000);
    }
    const { status } = await volumeOf(h, 'data-1');
    expect(status.code).toBe('ExecutorFailed');
    expect(status.message).toMatch(/^the executor failed on this record 5 times \(/);
    expectShortenedBefore(status.message, /…\); its message went to the dead-letter queue\. Nothing more is done until the reconciler looks at it again$/);
  });
});

describe('a CreateVolume EC2 will not repeat, with a long message', () => {
  it.each(LONG_TEXTS)('still says a volume may be left behind and that a retry creates a new one (%#)', async (text) => {
    const h = harness();
    const at = new Date(h.clock.now()).toISOString();
    const tags = { [OWNERSHIP_TAGS.owner]: 'ebs-provisioner', [OWNERSHIP_TAGS.record]: 'data-1' };
    await h.ebs.createVolume({ clientToken: 'ebsp-data-1-g1', availabilityZone: AZ, spec: newVolume('data-1').spec, tags });
    await h.store.create(
      newVolume('data-1', {
        generation: 2,
        availabilityZone: AZ,
        observedGeneration: 1,
        status: { state: 'creating', message: 'creating', attempts: 0, updatedAt: at, operationStartedAt: at },
      }, { sizeGiB: 20 }),
    );
    h.ebs.failNext('CreateVolume', new ProviderError('idempotency-mismatch', 'IdempotentParameterMismatch', text));
    for (let i = 0; i < 12; i++) {
      await h.watch();
      await h.settle(5000);
    }
    const { status } = await volumeOf(h, 'data-1');
    expect(status).toMatchObject({ state: 'error', code: 'IdempotentParameterMismatch' });
    expect(status.message).toMatch(/^EC2 will not repeat CreateVolume with token ebsp-data-1-g1 \(/);
    expectShortenedBefore(status.message, new RegExp(`…\\): a volume it may have made cannot be learnt and, if it exists, is reported by the reconciler as leaked \\(tag ${OWNERSHIP_TAGS.record}=data-1\\); a retry creates a new volume$`));
  });
});
