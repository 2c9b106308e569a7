/**
 * A dying attachment's detach that EC2 accepted and did not carry out is a failed attempt of the
 * detach, the record `attached` again so the detach is made after its backoff; with the attempt
 * budget spent it is in error instead (with its device, the detach made again after the longest
 * backoff), not `attached`.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord } from '../../lib/domain/records.js';
import { DEFAULT_ENGINE_CONFIG } from '../../lib/engine/config.js';
import { Executor } from '../../lib/engine/executor.js';
import { silentLog } from '../../lib/memory/index.js';
import { attachmentKey, harness, providerOver, attachData1, attachmentOf } from './engine-fixtures.js';

const KEY = attachmentKey('data-1');

describe('executor: a detach not taken on the last attempt of the budget', () => {
  it('ends the attachment in error with its device, not attached', async () => {
    const h = harness();
    await attachData1(h);
    const attached = await attachmentOf(h);
    expect(attached.status.state).toBe('attached');
    await h.store.update<AttachmentRecord>(KEY, { life: 'dying' });
    h.queue.receive(100).forEach((r) => h.queue.delete(r.receiptHandle));

    // EC2 accepts every DetachVolume and carries none out.
    const executor = new Executor({ store: h.store, queue: h.queue, provider: providerOver(h.ebs, { detachVolume: async () => undefined }), clock: h.clock, metrics: h.metrics, log: silentLog, config: { rateWaitMaxMs: 0 } });
    await executor.run(h.batchOf(h.op('detach', KEY)));
    const detaching = await attachmentOf(h);
    expect(detaching.status.state).toBe('detaching');
    // Every attempt but the last already spent.
    await h.store.update<AttachmentRecord>(KEY, { status: { ...detaching.status, attempts: DEFAULT_ENGINE_CONFIG.maxAttempts - 1 } });

    await h.clock.advance(DEFAULT_ENGINE_CONFIG.describeGraceMs + 1000);
    await executor.run(h.batchOf(h.op('check-attachment', KEY)));
    const failed = await attachmentOf(h);
    expect(failed.status).toMatchObject({ state: 'error', code: 'AttachmentNotDetached' });
    expect(failed.device).toBe(attached.device);
  });
});
