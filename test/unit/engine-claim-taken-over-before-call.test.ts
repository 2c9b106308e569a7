/**
 * A record whose claim another invocation took over (the lease ran out) before the write that
 * precedes the EC2 call is not called on, and is left to that invocation: this message does not
 * come back at once to look again.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord } from '../../lib/domain/records.js';
import { Executor } from '../../lib/engine/executor.js';
import { ConditionFailedError } from '../../lib/engine/ports.js';
import { silentLog } from '../../lib/memory/log.js';
import { attachmentKey, harness, newAttachment, newVolume, settleAll } from './engine-fixtures.js';

const KEY = attachmentKey('data-1');

describe('a forced detach whose claim another invocation holds by the write before the call', () => {
  it('makes no call and sends nothing to look again at once', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await h.store.create(newAttachment('data-1'));
    await settleAll(h, 4);
    expect(await h.store.get(KEY)).toMatchObject({ status: { state: 'attached' } });
    await h.store.update<AttachmentRecord>(KEY, { life: 'dying', forceDetach: true });
    h.changes.splice(0);
    h.queue.purge();
    // After the claim, the write before the call finds the record claimed by another invocation.
    const update = h.store.update.bind(h.store);
    let updates = 0;
    h.store.update = async (key, changes, condition) => {
      const written = await update(key, changes, condition);
      if (++updates === 1) {
        const claim = { owner: 'another-invocation', expiresAt: h.clock.now() + 180_000 };
        h.store.failNext('update', new ConditionFailedError('claimed elsewhere', { ...written, claim }));
      }
      return written;
    };
    const executor = new Executor({ store: h.store, queue: h.queue, provider: h.ebs, clock: h.clock, metrics: h.metrics, log: silentLog, config: { rateWaitMaxMs: 0 } });
    const detachesBefore = h.ebs.calls.DetachVolume ?? 0;

    await executor.run(h.batchOf(h.op('detach', KEY)));

    expect(h.ebs.calls.DetachVolume ?? 0).toBe(detachesBefore);
    expect(h.queued().filter((q) => q.delaySeconds === 0)).toEqual([]);
  });
});
