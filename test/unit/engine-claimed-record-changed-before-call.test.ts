/**
 * A record claimed for its operation and changed by its client before the write that precedes the
 * EC2 call (the claim still ours) is not called on: the claim is let go at once, and the message
 * is sent again at once, since nothing else plans the record again once the claim goes.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord } from '../../lib/domain/records.js';
import { Executor } from '../../lib/engine/executor.js';
import { ConditionFailedError } from '../../lib/engine/ports.js';
import { silentLog } from '../../lib/memory/log.js';
import { attachmentKey, harness, newAttachment, newVolume, settleAll } from './engine-fixtures.js';

const KEY = attachmentKey('data-1');

describe('a forced detach whose record changes under its claim before the call', () => {
  it('makes no call, lets the claim go and looks again at once', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await h.store.create(newAttachment('data-1'));
    await settleAll(h, 4);
    expect(await h.store.get(KEY)).toMatchObject({ status: { state: 'attached' } });
    await h.store.update<AttachmentRecord>(KEY, { life: 'dying', forceDetach: true });
    h.changes.splice(0);
    h.queue.purge();

    // After the claim, the record changes: the write before the call finds it changed, still under our claim.
    const update = h.store.update.bind(h.store);
    let updates = 0;
    h.store.update = async (key, changes, condition) => {
      const written = await update(key, changes, condition);
      if (++updates === 1) {
        expect(written.claim).toBeDefined();
        h.store.failNext('update', new ConditionFailedError('changed', written));
      }
      return written;
    };
    const executor = new Executor({ store: h.store, queue: h.queue, provider: h.ebs, clock: h.clock, metrics: h.metrics, log: silentLog, config: { rateWaitMaxMs: 0 } });
    const detachesBefore = h.ebs.calls.DetachVolume ?? 0;

    await executor.run(h.batchOf(h.op('detach', KEY)));

    expect(h.ebs.calls.DetachVolume ?? 0).toBe(detachesBefore);
    expect((await h.store.get(KEY)) as AttachmentRecord).not.toHaveProperty('claim');
    expect(h.queued()).toEqual([{ op: 'detach', key: 'data-1/i-0123456789abcdef0', delaySeconds: 0 }]);
  });
});
