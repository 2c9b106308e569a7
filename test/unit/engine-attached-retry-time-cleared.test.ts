/**
 * An attachment attached as recorded whose status still announces a next attempt, with no code
 * beside it (written straight into the table): a check that finds EC2 listing it attached ends
 * the wait, so the status announces no retry that never comes.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord } from '../../lib/domain/records.js';
import { attachmentKey, harness, attachData1 } from './engine-fixtures.js';

const KEY = attachmentKey('data-1');

describe('executor: a check of an attachment attached as recorded under a next attempt time', () => {
  it('clears the next attempt time and the attempts, keeping the device', async () => {
    const h = harness();
    await attachData1(h);
    const attached = (await h.store.get(KEY)) as AttachmentRecord;
    expect(attached.status.state).toBe('attached');
    expect(attached.status.code).toBeUndefined();

    const at = new Date(h.clock.now() + 600_000).toISOString();
    await h.store.update<AttachmentRecord>(KEY, { status: { ...attached.status, nextAttemptAt: at, attempts: 1 } });
    await h.clock.advance(60_000);
    await h.executor.run(h.batchOf(h.op('check-attachment', KEY)));
    const checked = (await h.store.get(KEY)) as AttachmentRecord;
    expect(checked.status).toMatchObject({ state: 'attached', attempts: 0 });
    expect(checked.status.nextAttemptAt).toBeUndefined();
    expect(checked.status.code).toBeUndefined();
    expect(checked.device).toBe(attached.device);
  });
});
