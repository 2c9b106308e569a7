/**
 * A retry is a generation bumped on a live record in error. A record written without a generation
 * (an attachment written before attachments had one) counts as generation 1: a client writing
 * generation 1 onto it bumps nothing and retries nothing; generation 2 retries it.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord } from '../../lib/domain/records.js';
import { attachmentKey, harness, newAttachment, newVolume } from './engine-fixtures.js';

describe('an attachment in error written without a generation', () => {
  it('is not retried by generation 1, which it had already, and is retried by generation 2', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await h.watch();
    const at = new Date(h.clock.now()).toISOString();
    const failed = { state: 'error' as const, code: 'InvalidParameterValue', message: 'The parameter is not valid', attempts: 1, updatedAt: at };
    const attachment = newAttachment('data-1', { status: failed });
    expect(attachment.generation).toBeUndefined();
    await h.store.create(attachment);
    h.changes.splice(0);
    await h.clock.advance(1000);

    await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { generation: 1 });
    await h.watch();
    expect((await h.store.get(attachmentKey('data-1')))?.status).toEqual(failed);

    await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { generation: 2 });
    await h.watch();
    const retried = (await h.store.get(attachmentKey('data-1'))) as AttachmentRecord;
    expect(retried.retriedGeneration).toBe(2);
    expect(retried.status.state).toBe('pending');
  });
});
