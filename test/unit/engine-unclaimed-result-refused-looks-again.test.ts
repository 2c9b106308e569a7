/**
 * An attach that stops before its claiming write (its instance could not be described) writes its
 * result on the version it read. When the record changed meanwhile that write is refused, and the
 * message is sent again to look at the record as it is now.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord } from '../../lib/domain/records.js';
import { Executor } from '../../lib/engine/executor.js';
import { ProviderError } from '../../lib/engine/ports.js';
import { silentLog } from '../../lib/memory/index.js';
import { attachmentKey, harness, INSTANCE, newAttachment, newVolume, providerOver, settleAll } from './engine-fixtures.js';

describe('an attach stopped before its claiming write, its record changed meanwhile', () => {
  it('writes nothing and sends its message again', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await settleAll(h, 4);
    await h.store.create(newAttachment('data-1'));
    h.changes.splice(0);
    h.queue.purge();
    const provider = providerOver(h.ebs, {
      describeInstances: async () => {
        await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { device: '/dev/xvdg' });
        throw new ProviderError('transient', 'InternalError', 'DescribeInstances failed');
      },
    });
    const executor = new Executor({ store: h.store, queue: h.queue, provider, clock: h.clock, metrics: h.metrics, log: silentLog });
    const before = await h.store.get(attachmentKey('data-1'));
    await executor.run([{ messageId: 'm', message: h.op('attach', attachmentKey('data-1')) }]);
    // The change made during the describe is all that was written.
    expect(await h.store.get(attachmentKey('data-1'))).toEqual({ ...before, device: '/dev/xvdg', version: before!.version + 1 });
    expect(h.queued()).toEqual([expect.objectContaining({ op: 'attach', key: `data-1/${INSTANCE}` })]);
  });
});
