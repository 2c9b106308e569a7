/**
 * An attachment attached as recorded whose status still names a failed look (a code, with or
 * without a next attempt): a check that finds EC2 listing it attached ends that failure, the
 * status a plain `attached` with no attempts counted.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord } from '../../lib/domain/records.js';
import { attachmentKey, harness, attachData1 } from './engine-fixtures.js';

const KEY = attachmentKey('data-1');

describe('executor: a check of an attachment attached as recorded under a failure code', () => {
  it('clears the code and the attempts', async () => {
    const h = harness();
    await attachData1(h);
    const attached = (await h.store.get(KEY)) as AttachmentRecord;
    expect(attached.status.state).toBe('attached');

    await h.store.update<AttachmentRecord>(KEY, { status: { ...attached.status, code: 'InternalError', message: 'EC2 had an internal error', attempts: 1 } });
    await h.clock.advance(60_000);
    await h.executor.run(h.batchOf(h.op('check-attachment', KEY)));
    const checked = (await h.store.get(KEY)) as AttachmentRecord;
    expect(checked.status).toMatchObject({ state: 'attached', attempts: 0 });
    expect(checked.status.code).toBeUndefined();
    expect(checked.device).toBe(attached.device);
  });
});
