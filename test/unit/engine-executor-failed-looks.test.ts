/**
 * A failed look at EC2 (DescribeVolumes failing) during an attach EC2 accepted says nothing of the
 * attach: the attachment stays `attaching` (a failed attempt of the look, retried after its
 * backoff), not `pending` as if AttachVolume had failed, and the next look finds it attached.
 */
import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../lib/engine/ports.js';
import { attachmentKey, harness, newAttachment, newVolume, volumeOf, attachmentOf } from './engine-fixtures.js';

describe('executor: a failed look at an attach under way', () => {
  it('keeps the attachment attaching with its device; the next look finds it attached', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await h.watch();
    await h.settle(10_000);
    expect((await volumeOf(h)).status.state).toBe('available');
    await h.store.create(newAttachment('data-1'));
    await h.executor.run(h.batchOf(h.op('attach', attachmentKey('data-1'))));
    const attaching = await attachmentOf(h);
    expect(attaching.status.state).toBe('attaching');

    // The attach's check comes with DescribeVolumes failing.
    h.ebs.failNext('DescribeVolumes', new ProviderError('transient', 'InternalError', 'EC2 had an internal error'));
    await h.clock.advance(5_000);
    await h.executor.run(h.batchOf(h.op('check-attachment', attachmentKey('data-1'))));
    const looked = await attachmentOf(h);
    expect(looked.status).toMatchObject({ state: 'attaching', code: 'InternalError', attempts: 1 });
    expect(looked.device).toBe(attaching.device);
    expect(looked.status.operationStartedAt).toBe(attaching.status.operationStartedAt);
    expect(h.ebs.calls.AttachVolume).toBe(1);

    await h.settle(60_000);
    const attached = await attachmentOf(h);
    expect(attached.status).toMatchObject({ state: 'attached', attempts: 0 });
    expect(attached.status.code).toBeUndefined();
    expect(attached.device).toBe(attaching.device);
    expect(h.ebs.calls.AttachVolume).toBe(1);
  });
});
