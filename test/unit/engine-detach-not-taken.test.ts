/**
 * A dying attachment's DetachVolume that EC2 accepted and did not carry out: within the describe
 * grace of the call a describe may lag it and the check looks again; from the moment the grace
 * has passed, EC2 still listing it attached means the detach did not take, a failed attempt, the
 * record `attached` again so the detach is made after its backoff; with the attempt budget spent it
 * is in error instead (with its device, the detach made again after the longest backoff).
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord } from '../../lib/domain/records.js';
import { DEFAULT_ENGINE_CONFIG } from '../../lib/engine/config.js';
import { Executor } from '../../lib/engine/executor.js';
import { silentLog } from '../../lib/memory/index.js';
import { attachmentKey, harness, providerOver, attachData1, attachmentOf } from './engine-fixtures.js';

const KEY = attachmentKey('data-1');

/** data-1 attached, its attachment dying and detaching on a DetachVolume EC2 accepted and made nothing of; the time of the call. */
async function detachNotMade() {
  const h = harness();
  await attachData1(h);
  await h.store.update<AttachmentRecord>(KEY, { life: 'dying' });
  h.queue.receive(100).forEach((r) => h.queue.delete(r.receiptHandle));
  const executor = new Executor({ store: h.store, queue: h.queue, provider: providerOver(h.ebs, { detachVolume: async () => undefined }), clock: h.clock, metrics: h.metrics, log: silentLog, config: { rateWaitMaxMs: 0 } });
  await executor.run(h.batchOf(h.op('detach', KEY)));
  const detaching = await attachmentOf(h);
  expect(detaching.status.state).toBe('detaching');
  return { h, executor, detaching, started: Date.parse(detaching.status.operationStartedAt!) };
}

describe('executor: a check of a detach EC2 still lists attached', () => {
  it('a millisecond before the describe grace ends: still detaching, no attempt counted', async () => {
    const { h, executor, started } = await detachNotMade();
    await h.clock.advance(started + DEFAULT_ENGINE_CONFIG.describeGraceMs - 1 - h.clock.now());
    await executor.run(h.batchOf(h.op('check-attachment', KEY)));
    expect((await attachmentOf(h)).status).toMatchObject({ state: 'detaching', attempts: 0 });
  });

  it('once the grace has passed: a failed attempt, the detach did not take', async () => {
    const { h, executor, started } = await detachNotMade();
    await h.clock.advance(started + DEFAULT_ENGINE_CONFIG.describeGraceMs - h.clock.now());
    await executor.run(h.batchOf(h.op('check-attachment', KEY)));
    expect((await attachmentOf(h)).status).toMatchObject({ state: 'attached', code: 'AttachmentNotDetached', attempts: 1 });
  });
});

describe('executor: a detach not taken on the last attempt of the budget', () => {
  it('ends the attachment in error with its device, not attached', async () => {
    const { h, executor, detaching } = await detachNotMade();
    // Every attempt but the last already spent.
    await h.store.update<AttachmentRecord>(KEY, { status: { ...detaching.status, attempts: DEFAULT_ENGINE_CONFIG.maxAttempts - 1 } });

    await h.clock.advance(DEFAULT_ENGINE_CONFIG.describeGraceMs + 1000);
    await executor.run(h.batchOf(h.op('check-attachment', KEY)));
    const failed = await attachmentOf(h);
    expect(failed.status).toMatchObject({ state: 'error', code: 'AttachmentNotDetached' });
    expect(detaching.device).toBeDefined();
    expect(failed.device).toBe(detaching.device);
  });
});
