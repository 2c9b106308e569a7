/**
 * An attach a check saw not take, retried after its backoff, while its volume record shows the
 * volume modifying: the attachment waits for its volume, and its status names the retry's time.
 * The check-attachment message comes at that time (`followUp`), to attach or write the wait then,
 * not at once.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord } from '../../lib/domain/records.js';
import { attachmentKey, attachmentOf, iopsModification, newAttachment } from './engine-fixtures.js';

describe("an attach retried after its backoff while the volume's modification goes on", () => {
  it("sends the attachment's message for the retry's time", async () => {
    const h = await iopsModification({ modify: 3_600_000, optimize: 3_600_000 });
    const startedAt = new Date(h.clock.now() - 600_000).toISOString();
    const at = new Date(h.clock.now()).toISOString();
    await h.store.create(newAttachment('data-1', { device: '/dev/sdf', status: { state: 'attaching', attempts: 0, updatedAt: at, operationStartedAt: startedAt } }));

    expect((await h.executor.run(h.batchOf(h.op('check-attachment', attachmentKey('data-1'))))).failedMessageIds).toEqual([]);

    const attachment: AttachmentRecord = await attachmentOf(h);
    expect(attachment.status).toMatchObject({ state: 'pending', code: 'AttachmentNotFound' });
    expect(attachment.device).toBeUndefined();
    const retryAt = Date.parse(attachment.status.nextAttemptAt!);
    expect(retryAt).toBeGreaterThan(h.clock.now());
    const key = `data-1/${attachment.instanceId}`;
    expect(h.queued().filter((queued) => queued.key === key)).toEqual([{ op: 'check-attachment', key, delaySeconds: Math.round((retryAt - h.clock.now()) / 1000) }]);
  });
});
