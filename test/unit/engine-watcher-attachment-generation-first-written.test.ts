/**
 * An attachment written before it had a generation counts as generation 1: its client writing
 * generation 1 onto it while it is in error bumps nothing and retries nothing; generation 2 does.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord } from '../../lib/domain/records.js';
import { attachmentKey, data1Created, harness, newAttachment } from './engine-fixtures.js';

describe('an attachment in error written before it had a generation', () => {
  it('is not retried when generation 1 is written onto it, and is when generation 2 is', async () => {
    const h = harness();
    await data1Created(h);
    const at = new Date(h.clock.now()).toISOString();
    await h.store.create(
      newAttachment('data-1', { status: { state: 'error', code: 'IncorrectInstanceState', message: 'instance was terminated', attempts: 1, updatedAt: at } }),
    );
    await h.watch();
    const failed = (await h.store.get(attachmentKey('data-1'))) as AttachmentRecord;
    expect(failed.generation).toBeUndefined();
    expect(failed.status).toMatchObject({ state: 'error', code: 'IncorrectInstanceState' });
    expect(h.queued()).toEqual([]);

    const written = await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { generation: 1 });
    await h.watch();
    expect(await h.store.get(attachmentKey('data-1'))).toEqual(written);
    expect(h.queued()).toEqual([]);

    await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { generation: 2 });
    await h.watch();
    expect((await h.store.get(attachmentKey('data-1')))?.status.state).toBe('pending');
    await h.settle(30_000);
    expect((await h.store.get(attachmentKey('data-1')))?.status.state).toBe('attached');
  });
});
