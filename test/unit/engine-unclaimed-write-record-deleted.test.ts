/**
 * An attach stopped before its claiming write (its instance could not be described) writes its
 * failure on the version it read. When the record was deleted meanwhile that write is refused and
 * nothing is sent for it: a deleted record is never brought back, nor looked at again.
 */
import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../lib/engine/ports.js';
import { attachmentKey, harness, newAttachment, newVolume, settleAll } from './engine-fixtures.js';

describe('an unclaimed attach whose record is deleted before its failure is written', () => {
  it('writes nothing and queues nothing for it', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await settleAll(h);
    await h.store.create(newAttachment('data-1'));
    h.ebs.failNext('DescribeInstances', new ProviderError('transient', 'InternalError', 'EC2 had an internal error'));
    const update = h.store.update.bind(h.store);
    h.store.update = (async (key, changes, condition) => {
      if (key.kind === 'attachment') await h.store.remove(key);
      return update(key, changes, condition);
    }) as typeof h.store.update;

    await h.executor.run(h.batchOf(h.op('attach', attachmentKey('data-1'))));
    expect(await h.store.get(attachmentKey('data-1'))).toBeUndefined();
    expect(h.ebs.calls.AttachVolume ?? 0).toBe(0);
    expect(h.queue.pending().filter((p) => p.message.key.kind === 'attachment')).toEqual([]);
  });
});
