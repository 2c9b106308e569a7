/**
 * A record its client just made dying drops the failed attempts of the live operation it no longer
 * makes (`madeDyingStatus`). A record already dying keeps its own: another change of its client (a
 * forced detach asked for) leaves the failed attempts of its detach and their backoff as they are.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord } from '../../lib/domain/records.js';
import { attachmentKey, data1Created, harness, newAttachment } from './engine-fixtures.js';
import { modify } from './watcher-fixtures.js';

describe('a client change of a record already dying', () => {
  it("keeps the failed attempts of its detach and their next attempt: only a record made dying drops a live operation's", async () => {
    const h = harness();
    await data1Created(h);
    const at = new Date(h.clock.now()).toISOString();
    const failedDetach = {
      state: 'attached' as const,
      code: 'RequestTimeout',
      message: 'Request timed out',
      attempts: 2,
      updatedAt: at,
      operationStartedAt: at,
      nextAttemptAt: new Date(h.clock.now() + 60_000).toISOString(),
    };
    const dying = newAttachment('data-1', { life: 'dying', device: '/dev/sdf', status: failedDetach });
    await h.store.create(dying);
    h.changes.splice(0);
    const forced = await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { forceDetach: true });

    await h.watcher.handle([modify(dying, forced)]);

    expect((await h.store.get(attachmentKey('data-1')))?.status).toEqual(failedDetach);
  });
});
